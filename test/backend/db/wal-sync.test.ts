/**
 * Group commit of the embedded database's WAL sync: callers that ask while a sync runs share the next one,
 * and nobody is answered by a sync that started before they asked.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WalSync } from '../../../backend/db/pglite';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A `pg_wal` folder with one segment, and a sync function that counts calls and finishes when told. */
function walWithControlledSync() {
  const dir = mkdtempSync(join(tmpdir(), 'desk-wal-'));
  dirs.push(dir);
  const walDir = join(dir, 'pg_wal');
  mkdirSync(walDir);
  writeFileSync(join(walDir, '000000010000000000000001'), 'wal');
  const pending: Array<() => void> = [];
  let calls = 0;
  const syncFile = () => {
    calls += 1;
    return new Promise<void>((resolve) => pending.push(resolve));
  };
  const finishOne = async () => {
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    pending.shift()!();
  };
  return { sync: new WalSync(walDir, syncFile), calls: () => calls, finishOne };
}

describe('the WAL sync', () => {
  it('answers ten commits that arrive during a sync with one more sync, not ten', async () => {
    const { sync, calls, finishOne } = walWithControlledSync();
    const done: number[] = [];
    const first = sync.sync().then(() => done.push(0));
    const waiting = Array.from({ length: 10 }, (_, i) => sync.sync().then(() => done.push(i + 1)));
    await finishOne(); // the first round, which started before the ten asked
    await first;
    expect(done).toEqual([0]); // the ten are not answered by a sync that began before their writes
    await finishOne(); // the one round they share
    await Promise.all(waiting);
    expect(done).toHaveLength(11);
    expect(calls()).toBe(2);
  });

  it('starts a new sync for a commit that arrives after the last one finished', async () => {
    const { sync, calls, finishOne } = walWithControlledSync();
    const first = sync.sync();
    await finishOne();
    await first;
    const second = sync.sync();
    await finishOne();
    await second;
    expect(calls()).toBe(2);
  });
});
