/**
 * The embedded database's WAL sync. Group commit: callers that ask while a sync runs share the next one,
 * and nobody is answered by a sync that started before they asked. The segment it syncs is the one Postgres
 * writes, also when a checkpoint has recycled old segments under future names, and it follows Postgres into
 * the next segment. After a checkpoint (whose table pages PGlite does not sync) the whole cluster is synced.
 */
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { WalSync } from '../../../backend/db/pglite';

/** The size of the segments the fake folders hold (a power of two, as Postgres's are). */
const SIZE = 65_536;

/**
 * Writes a segment file `name` whose first page header carries `pageaddr` (by default the segment's own start
 * address, as in a segment Postgres writes; a recycled file carries an older one, a prepared one zero).
 */
function writeSegment(walDir: string, name: string, pageaddr?: bigint): void {
  const bytes = Buffer.alloc(SIZE);
  const segno =
    BigInt(`0x${name.slice(8, 16)}`) * (0x1_0000_0000n / BigInt(SIZE)) + BigInt(`0x${name.slice(16)}`);
  bytes.writeBigUInt64LE(pageaddr ?? segno * BigInt(SIZE), 8);
  writeFileSync(join(walDir, name), bytes);
}

/** The file name behind an open descriptor of this process. */
const fileOf = (fd: number) => basename(readlinkSync(`/proc/self/fd/${fd}`));

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
  writeSegment(walDir, '000000010000000000000001');
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

  it('syncs the segment Postgres writes, not a recycled one under a later name, and follows it into the next', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'desk-wal-'));
    dirs.push(dir);
    const walDir = join(dir, 'pg_wal');
    mkdirSync(walDir);
    writeSegment(walDir, '000000010000000000000001');
    writeSegment(walDir, '000000010000000000000002'); // the current one
    writeSegment(walDir, '000000010000000000000003', 0n); // prepared ahead of use
    writeSegment(walDir, '000000010000000000000004', BigInt(SIZE)); // segment 1, recycled
    const synced: string[] = [];
    const sync = new WalSync(walDir, async (fd) => {
      synced.push(fileOf(fd));
    });
    await sync.sync();
    expect(synced).toEqual(['000000010000000000000002']);

    // Postgres begins segment 3: the round syncs the end of 2, then 3; later rounds 3 alone.
    writeSegment(walDir, '000000010000000000000003');
    synced.length = 0;
    await sync.sync();
    await sync.sync();
    expect(synced).toEqual([
      '000000010000000000000002',
      '000000010000000000000003',
      '000000010000000000000003',
    ]);
    await sync.close();
  });

  it("syncs real PGlite's current segment after checkpoints recycled old ones under later names", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'desk-wal-pglite-'));
    dirs.push(dir);
    const pg = new PGlite({ dataDir: dir });
    try {
      await pg.exec('CREATE TABLE filler (v text)');
      const current = async () =>
        (await pg.query<{ f: string }>('SELECT pg_walfile_name(pg_current_wal_lsn()) AS f')).rows[0]!.f;
      const names = () => readdirSegments(join(dir, 'pg_wal'));
      // Fill segments and checkpoint until a file with a later name than the current one exists (bounded).
      for (let round = 0; round < 4 && names().at(-1) === (await current()); round++) {
        await pg.exec("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 20000)");
        await pg.exec('CHECKPOINT');
      }
      expect(names().at(-1)! > (await current())).toBe(true);
      const synced: string[] = [];
      const sync = new WalSync(join(dir, 'pg_wal'), async (fd) => {
        synced.push(fileOf(fd));
      });
      await pg.exec("INSERT INTO filler VALUES ('a commit')");
      await sync.sync();
      expect(synced.at(-1)).toBe(await current());
      await sync.close();
    } finally {
      await pg.close();
    }
  });

  it('syncs the whole cluster at its first round and after each checkpoint, not after other commits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'desk-wal-pglite-'));
    dirs.push(dir);
    const pg = new PGlite({ dataDir: dir });
    try {
      await pg.exec('CREATE TABLE t (v text)');
      let clusterSyncs = 0;
      const sync = new WalSync(
        join(dir, 'pg_wal'),
        async () => {},
        async () => {
          clusterSyncs += 1;
        },
      );
      await sync.sync(); // a start after a crash ends its recovery with a checkpoint
      expect(clusterSyncs).toBe(1);
      await pg.exec("INSERT INTO t VALUES ('a')");
      await sync.sync();
      expect(clusterSyncs).toBe(1);
      await pg.exec('CHECKPOINT');
      await sync.sync();
      expect(clusterSyncs).toBe(2);
      await sync.close();
    } finally {
      await pg.close();
    }
  });
});

/** The segment files of `walDir`, sorted by name. */
function readdirSegments(walDir: string): string[] {
  return readdirSync(walDir)
    .filter((n) => /^[0-9A-F]{24}$/.test(n))
    .sort();
}
