/**
 * The embedded database's kept file sizes (backend/db/pglite-file-sizes.ts): Postgres's seeks to the end of
 * a file are answered without a `stat` once its length is known, and what Postgres reads as a relation's
 * size stays the file's real size through everything that changes it (inserts that extend it, a TRUNCATE, a
 * VACUUM that cuts empty pages off its end, VACUUM FULL, DROP and CREATE again). Then the same rules on a
 * stand-in NODEFS, for the cases Postgres rarely takes: appends, failed writes, truncates and opens.
 */
import fs, { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openPglite } from '../../../backend/db/pglite';
import { keepFileSizes, type NodeFsOps } from '../../../backend/db/pglite-file-sizes';
import { fileTempDir } from '../../helpers/file-temp-dirs';

const opened: Database[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const db of opened.splice(0)) await db.close();
});

/** The embedded database on a new data directory, as a server opens it. */
async function pgliteOnDisk(): Promise<{ pg: Database; dir: string }> {
  const dir = join(fileTempDir('desk-file-sizes-'), 'db');
  const pg = await openPglite(dir);
  opened.push(pg);
  return { pg, dir };
}

/** What Postgres reads as the main fork's size of `table`, and the size of its file on disk. */
async function sizes(pg: Database, dir: string, table: string): Promise<{ postgres: number; file: number }> {
  const { rows } = await pg.query<{ path: string; size: string }>(
    'SELECT pg_relation_filepath($1::regclass) AS path, pg_relation_size($1::regclass) AS size',
    [table],
  );
  return { postgres: Number(rows[0]!.size), file: statSync(join(dir, rows[0]!.path)).size };
}

describe('kept file sizes on the embedded database', () => {
  it('answers repeated statements without a stat of their files', async () => {
    const { pg } = await pgliteOnDisk();
    await pg.exec(`CREATE TABLE t (id int PRIMARY KEY, v text); CREATE INDEX t_v ON t (v);
      INSERT INTO t SELECT i, 'v' || i FROM generate_series(1, 500) i;`);
    await pg.query('SELECT count(*) FROM t WHERE v = $1', ['v1']);
    const stat = vi.spyOn(fs, 'fstatSync');
    for (let i = 0; i < 50; i++) {
      await pg.query('SELECT * FROM t WHERE v = $1', [`v${i}`]);
      await pg.query('SELECT count(*) FROM t');
    }
    expect(stat).not.toHaveBeenCalled();
  });

  it('keeps the size Postgres reads equal to the file through every change of its length', async () => {
    const { pg, dir } = await pgliteOnDisk();
    await pg.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
    const seen: Array<{ postgres: number; file: number }> = [];
    const check = async () => {
      const s = await sizes(pg, dir, 't');
      expect(s.postgres).toBe(s.file);
      seen.push(s);
    };

    await check();
    await pg.exec(`INSERT INTO t SELECT i, repeat('x', 200) FROM generate_series(1, 2000) i`);
    await check();
    await pg.exec(`INSERT INTO t SELECT i, repeat('y', 200) FROM generate_series(2001, 3000) i`);
    await check();
    // Empty pages at the end are cut off by VACUUM (an ftruncate of the file).
    await pg.exec('DELETE FROM t WHERE id > 500');
    await pg.exec('VACUUM t');
    await check();
    await pg.exec('VACUUM FULL t');
    await check();
    await pg.exec('TRUNCATE t');
    await check();
    await pg.exec(`INSERT INTO t SELECT i, 'z' FROM generate_series(1, 100) i`);
    await check();
    await pg.exec('DROP TABLE t');
    await pg.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
    await pg.exec(`INSERT INTO t SELECT i, repeat('w', 300) FROM generate_series(1, 1000) i`);
    await check();

    // The sizes really moved: grown, cut, emptied, grown again.
    const lengths = seen.map((s) => s.file);
    expect(lengths[1]).toBeGreaterThan(lengths[0]!);
    expect(lengths[2]).toBeGreaterThan(lengths[1]!);
    expect(lengths[3]).toBeLessThan(lengths[2]!);
    expect(lengths[5]).toBe(0);
    expect(lengths[7]).toBeGreaterThan(0);
  });
});

/** A stand-in NODEFS over an in-memory file per node, counting the seeks that reach it. */
function fakeNodefs() {
  const lengths = new Map<object, number>();
  const calls = { seeksToEnd: 0 };
  const nodefs: NodeFsOps = {
    stream_ops: {
      llseek(s, offset, whence) {
        if (whence !== 2) return offset;
        calls.seeksToEnd++;
        const position = offset + (lengths.get(s.node) ?? 0);
        if (position < 0) throw new Error('EINVAL');
        return position;
      },
      write(s, _buffer, _offset, length, position) {
        if (length < 0) throw new Error('EIO');
        const at = s.flags & 1024 ? (lengths.get(s.node) ?? 0) : position;
        lengths.set(s.node, Math.max(lengths.get(s.node) ?? 0, at + length));
        return length;
      },
      open() {},
      setattr(s, attr) {
        if (attr.size !== undefined) lengths.set(s.node, attr.size);
      },
    },
    node_ops: {
      setattr(node, attr) {
        if (attr.size !== undefined) lengths.set(node, attr.size);
      },
    },
  };
  return { nodefs, lengths, calls };
}

describe('kept file sizes, the rules', () => {
  it('reads a length once, then follows writes past the end and ignores writes inside it', () => {
    const { nodefs, calls } = fakeNodefs();
    const kept = keepFileSizes(nodefs);
    const stream = { node: {}, flags: 2 };
    nodefs.stream_ops.write(stream, null, 0, 100, 0);
    expect(nodefs.stream_ops.llseek(stream, 0, 2)).toBe(100);
    nodefs.stream_ops.write(stream, null, 0, 50, 10);
    nodefs.stream_ops.write(stream, null, 0, 8192, 100);
    expect(nodefs.stream_ops.llseek(stream, 0, 2)).toBe(8292);
    expect(nodefs.stream_ops.llseek(stream, -92, 2)).toBe(8200);
    expect(kept.sizeOf(stream.node)).toBe(8292);
    expect(calls.seeksToEnd).toBe(1);
  });

  it('forgets a length after an append, a failed write, a truncate either way and an open', () => {
    const { nodefs, lengths, calls } = fakeNodefs();
    const kept = keepFileSizes(nodefs);
    const node = {};
    const stream = { node, flags: 2 };
    const known = () => {
      nodefs.stream_ops.llseek(stream, 0, 2);
      expect(kept.sizeOf(node)).toBe(lengths.get(node) ?? 0);
    };

    known();
    nodefs.stream_ops.write({ node, flags: 2 | 1024 }, null, 0, 10, 0);
    expect(kept.sizeOf(node)).toBeUndefined();
    known();
    expect(() => nodefs.stream_ops.write(stream, null, 0, -1, 0)).toThrow('EIO');
    expect(kept.sizeOf(node)).toBeUndefined();
    known();
    nodefs.stream_ops.setattr!(stream, { size: 4 });
    expect(kept.sizeOf(node)).toBeUndefined();
    expect(nodefs.stream_ops.llseek(stream, 0, 2)).toBe(4);
    nodefs.node_ops.setattr(node, { size: 0 });
    expect(kept.sizeOf(node)).toBeUndefined();
    expect(nodefs.stream_ops.llseek(stream, 0, 2)).toBe(0);
    nodefs.stream_ops.open(stream);
    expect(kept.sizeOf(node)).toBeUndefined();
    nodefs.stream_ops.llseek(stream, 0, 2);
    expect(calls.seeksToEnd).toBe(6);
  });

  it('leaves a seek before the start to the file system to refuse, and wraps a NODEFS once', () => {
    const { nodefs } = fakeNodefs();
    const kept = keepFileSizes(nodefs);
    const stream = { node: {}, flags: 2 };
    expect(() => nodefs.stream_ops.llseek(stream, -1, 2)).toThrow('EINVAL');
    const llseek = nodefs.stream_ops.llseek;
    expect(keepFileSizes(nodefs)).toBe(kept);
    expect(nodefs.stream_ops.llseek).toBe(llseek);
  });
});
