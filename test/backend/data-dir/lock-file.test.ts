import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireLockFile, processStartTime } from '../../../backend/data-dir/lock-file';

const temp = mkdtempSync(join(tmpdir(), 'lock-file-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** The PID of a process that has exited (a short-lived child, waited for). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

function staleLock(path: string, holder: Record<string, unknown>): string {
  const text = `${JSON.stringify({ hostname: hostname(), purpose: 'm serve', ...holder })}\n`;
  writeFileSync(path, text, { mode: 0o600 });
  return text;
}

describe('acquireLockFile (docs/operators.md#one-process-per-data-directory)', () => {
  it('refuses a lock held by a live process with data_dir_locked naming its PID', async () => {
    const path = join(temp, 'live.lock');
    staleLock(path, { pid: process.pid, started: processStartTime(process.pid) });
    await expect(acquireLockFile(path, 'm serve')).rejects.toMatchObject({
      code: 'data_dir_locked',
      message: expect.stringContaining(`(PID ${process.pid})`),
    });
  });

  it('takes over the lock of a dead process, and of a reused PID whose start time differs', async () => {
    for (const [name, holder] of [
      ['dead.lock', { pid: deadPid() }],
      ['reused.lock', { pid: process.pid, started: 'not-this-process' }],
    ] as const) {
      const path = join(temp, name);
      staleLock(path, holder);
      const lock = await acquireLockFile(path, 'm serve');
      expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      lock.release();
      expect(existsSync(path)).toBe(false);
    }
  });

  it('lets exactly one of several takers of the same stale lock win; the others see the winner', async () => {
    const path = join(temp, 'raced.lock');
    staleLock(path, { pid: deadPid() });
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () => acquireLockFile(path, 'm serve')),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'data_dir_locked' });
    }
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    (won[0] as PromiseFulfilledResult<{ release(): void }>).value.release();
    expect(existsSync(path)).toBe(false);
  });
});
