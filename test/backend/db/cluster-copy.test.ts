/**
 * Copying the kept cluster file by file (backend/db/cluster-copy.ts): what it writes from a well-formed
 * archive, and what it refuses, on archives written here by hand in the ustar format.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyCluster, NotAClusterArchive } from '../../../backend/db/cluster-copy';
import { createCluster } from '../../../backend/db/pglite-settings';
import { fileTempDir } from '../../helpers/file-temp-dirs';

type Entry = { name: string; data?: string; type?: '0' | '5' | '2' };

/** A ustar header for `entry`, checksum included. */
function header({ name, data = '', type = '0' }: Entry): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100, 'utf8');
  block.write('0000600\0', 100);
  block.write('0000000\0', 108);
  block.write('0000000\0', 116);
  block.write(`${Buffer.byteLength(data).toString(8).padStart(11, '0')}\0`, 124);
  block.write('00000000000\0', 136);
  block.write(type, 156);
  block.write('ustar\0', 257);
  block.write('00', 263);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

/** An archive of `entries`, with its end marker unless `cut` leaves it (and that many bytes) off. */
function archive(entries: Entry[], cut = 0): string {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header(entry));
    const data = Buffer.from(entry.data ?? '');
    parts.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  const whole = Buffer.concat(parts);
  const path = join(fileTempDir('cluster-archive-'), 'cluster.tar');
  writeFileSync(path, whole.subarray(0, whole.length - cut));
  return path;
}

/** The files a cluster needs, as PGlite's dump names them (from the data directory's root). */
const CLUSTER: Entry[] = [
  { name: '/PG_VERSION', data: '17\n' },
  { name: '/global', type: '5' },
  { name: '/global/pg_control', data: 'control' },
  { name: '/base/1/112', data: 'x'.repeat(3000) },
  { name: '/postmaster.pid', data: '42\n/pgdata\n' },
];

describe('copyCluster', () => {
  it("writes every folder and file of the archive, without the writer's lock file, PG_VERSION included", async () => {
    const dir = join(fileTempDir('cluster-copy-'), 'db');
    await copyCluster(archive(CLUSTER), dir);
    expect(readFileSync(join(dir, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(readFileSync(join(dir, 'global', 'pg_control'), 'utf8')).toBe('control');
    expect(readFileSync(join(dir, 'base', '1', '112'), 'utf8')).toBe('x'.repeat(3000));
    expect(existsSync(join(dir, 'postmaster.pid'))).toBe(false);
    // Personal data will live here: only its owner may read it.
    expect(statSync(join(dir, 'base', '1', '112')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'base')).mode & 0o777).toBe(0o700);
  });

  it.each<[string, Entry[], number]>([
    ['a name that leaves the folder', [{ name: '../escaped', data: 'x' }, ...CLUSTER], 0],
    ['an entry that is a link', [{ name: '/base/link', type: '2' }, ...CLUSTER], 0],
    ['no pg_control', CLUSTER.filter((e) => e.name !== '/global/pg_control'), 0],
    ['data cut short', CLUSTER, 2048 + 1000],
    ['no end marker', CLUSTER, 1024],
  ])('refuses an archive with %s, and PG_VERSION is not written', async (_what, entries, cut) => {
    const parent = fileTempDir('cluster-copy-');
    const dir = join(parent, 'db');
    await expect(copyCluster(archive(entries, cut), dir)).rejects.toBeInstanceOf(NotAClusterArchive);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(false);
    expect(readdirSync(parent)).toEqual(['db']);
  });

  it('refuses a header whose checksum does not match', async () => {
    const path = archive(CLUSTER);
    const bytes = readFileSync(path);
    bytes[1] = 'Q'.charCodeAt(0);
    writeFileSync(path, bytes);
    await expect(copyCluster(path, join(fileTempDir('cluster-copy-'), 'db'))).rejects.toThrow(/checksum/);
  });
});

describe('createCluster from a kept archive', () => {
  it('keeps the archive and throws when the folder cannot be written, rather than taking the archive for a bad one', async () => {
    const parent = fileTempDir('cluster-copy-');
    const template = archive(CLUSTER);
    // A file where the data directory's parent folder should be: every write fails with ENOTDIR.
    writeFileSync(join(parent, 'not-a-folder'), '');
    await expect(createCluster(join(parent, 'not-a-folder', 'db'), template)).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    expect(existsSync(template)).toBe(true);
  });
});
