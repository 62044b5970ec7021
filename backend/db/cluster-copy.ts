import { type FileHandle, mkdir, open, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { syncPath, syncTree } from './checkpoint-sync';

/** A tar archive's unit: every header, and every file's data padded to a multiple of it. */
const BLOCK = 512;
/** How much of a file's data is copied at a time: the archive is never read whole (it holds 16 MB of WAL). */
const CHUNK = 1 << 20;
/** Written last: a folder without it is not a cluster yet, so an interrupted copy is made again. */
const VERSION_FILE = 'PG_VERSION';
/** Files without which PostgreSQL does not start: an archive lacking one is not a cluster. */
const REQUIRED = [VERSION_FILE, join('global', 'pg_control')];
/** The lock file of the instance that wrote the archive, which a stopped cluster does not have. */
const SKIPPED = new Set(['postmaster.pid']);

/** The kept archive is not one of a cluster: it is removed and initdb runs instead. */
export class NotAClusterArchive extends Error {
  override readonly name = 'NotAClusterArchive';
}

/**
 * Writes the cluster kept at `template` into the folder `dir`, as PGlite's own `loadDataDir` does, but
 * without starting a database to do it: a new data directory is then a copy of about a thousand files
 * (docs/performance.md#new-clusters). `template` is the uncompressed ustar archive PGlite's `dumpDataDir`
 * makes: folders and regular files, named from the data directory's root. Everything is synced to disk
 * before `PG_VERSION` is written (and synced) last, as initdb syncs the cluster it made: a crash at any
 * point leaves a folder that is not yet a cluster and is made again at the next open.
 *
 * Throws {@link NotAClusterArchive}, having written only inside `dir`, on an archive that is not one of a
 * cluster: a header whose checksum does not match, an entry other than a folder or a regular file, a name
 * that leaves `dir`, data past the archive's end, or a required file missing; a failed read or write throws
 * the system's error (`ENOSPC` on a full device).
 */
export async function copyCluster(template: string, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const archive = await open(template, 'r');
  let version: Buffer | undefined;
  const written = new Set<string>();
  try {
    const header = Buffer.alloc(BLOCK);
    const chunk = Buffer.alloc(CHUNK);
    const { size: archiveSize } = await archive.stat();
    let offset = 0;
    for (;;) {
      if (offset + BLOCK > archiveSize)
        throw new NotAClusterArchive('the archive ends without its end marker');
      await readExactly(archive, header, BLOCK, offset);
      offset += BLOCK;
      if (header.every((byte) => byte === 0)) break;
      const entry = parseHeader(header);
      const path = inside(dir, entry.name);
      const name = relative(dir, path);
      if (offset + entry.size > archiveSize)
        throw new NotAClusterArchive(`the archive ends inside ${entry.name}`);
      if (entry.type === 'folder') {
        await mkdir(path, { recursive: true, mode: 0o700 });
      } else if (name === VERSION_FILE) {
        version = Buffer.alloc(entry.size);
        await readExactly(archive, version, entry.size, offset);
      } else if (!SKIPPED.has(name)) {
        await mkdir(dirname(path), { recursive: true, mode: 0o700 });
        await copyData(archive, offset, entry.size, path, chunk);
        written.add(name);
      }
      offset += Math.ceil(entry.size / BLOCK) * BLOCK;
    }
  } finally {
    await archive.close();
  }
  const missing = REQUIRED.filter((name) => (name === VERSION_FILE ? !version : !written.has(name)));
  if (missing.length > 0)
    throw new NotAClusterArchive(`the archive is not a cluster: no ${missing.join(', ')}`);
  await syncTree(dir);
  const versionFile = join(dir, VERSION_FILE);
  await writeFile(versionFile, version!, { mode: 0o600 });
  await syncPath(versionFile);
  await syncPath(dir);
}

/** An archive entry's header: its name, what it is and how many bytes of data follow. */
interface TarEntry {
  name: string;
  type: 'file' | 'folder';
  size: number;
}

/** Reads a ustar header (POSIX.1-1988), checksum checked. */
function parseHeader(header: Buffer): TarEntry {
  const stored = octal(header, 148, 8);
  let sum = 0;
  // The checksum is computed with its own field read as eight spaces.
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  if (stored !== sum) throw new NotAClusterArchive('a header of the archive is damaged (checksum)');
  const name = text(header, 0, 100);
  const prefix = text(header, 345, 155);
  const flag = String.fromCharCode(header[156]!);
  const type = flag === '5' ? 'folder' : flag === '0' || flag === '\0' ? 'file' : undefined;
  if (!type)
    throw new NotAClusterArchive(`the archive holds an entry that is neither a file nor a folder: ${name}`);
  return {
    name: prefix ? `${prefix}/${name}` : name,
    type,
    size: type === 'file' ? octal(header, 124, 12) : 0,
  };
}

/** A NUL-terminated field of a header. */
function text(header: Buffer, start: number, length: number): string {
  const field = header.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
}

/** An octal number field of a header (digits, padded with spaces or NULs). */
function octal(header: Buffer, start: number, length: number): number {
  const digits = text(header, start, length).trim();
  if (!/^[0-7]+$/.test(digits)) throw new NotAClusterArchive('a header of the archive is damaged (a number)');
  return Number.parseInt(digits, 8);
}

/** The path of the archive's `name` under `dir`; refuses a name that would leave it. */
function inside(dir: string, name: string): string {
  const path = join(dir, name.replace(/^\/+/, ''));
  const rel = relative(dir, path);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`)) {
    throw new NotAClusterArchive(`the archive names a path outside the cluster: ${name}`);
  }
  return path;
}

/** Copies `size` bytes at `offset` of the archive into a new file at `path`, a chunk at a time. */
async function copyData(archive: FileHandle, offset: number, size: number, path: string, chunk: Buffer) {
  const out = await open(path, 'w', 0o600);
  try {
    for (let done = 0; done < size; ) {
      const length = Math.min(chunk.length, size - done);
      await readExactly(archive, chunk, length, offset + done);
      await out.write(chunk, 0, length);
      done += length;
    }
  } finally {
    await out.close();
  }
}

/** Fills `buffer[0..length)` from `position`; an archive shorter than its headers say is refused. */
async function readExactly(file: FileHandle, buffer: Buffer, length: number, position: number) {
  let read = 0;
  while (read < length) {
    const { bytesRead } = await file.read(buffer, read, length - read, position + read);
    if (bytesRead === 0) throw new NotAClusterArchive('the archive ends early');
    read += bytesRead;
  }
}
