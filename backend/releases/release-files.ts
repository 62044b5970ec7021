import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

/** A release's version: the app's package.json version, `+`, a build id (12 hex digits of its files' hash). */
export const RELEASE_VERSION_PATTERN = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,64})?\+[0-9a-f]{12}$/;

/** A package.json version a release may start from (semantic version, no build metadata). */
export const PACKAGE_VERSION_PATTERN = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,64})?$/;

/**
 * A path inside a remote's build folder: `/`-separated segments of letters, digits, `.`, `_`, `-`, none
 * starting with a dot, at most 8 deep and 255 characters. Anything else is refused before a file is written.
 */
const FILE_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** True when `path` is a file path a release may hold (see the rules above). */
export function isReleaseFilePath(path: string): boolean {
  if (path.length === 0 || path.length > 255) return false;
  const segments = path.split('/');
  return segments.length <= 8 && segments.every((s) => FILE_SEGMENT.test(s));
}

/** The SRI value (W3C SRI, `sha384-<base64>`) of some bytes. */
export function sha384Of(bytes: Uint8Array): string {
  return `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
}

/**
 * The build id of a release: 12 hex digits of a SHA-256 over its sorted `path:sha384` lines, so the same
 * build published twice is the same release and a different build is a different one.
 */
export function buildIdOf(files: ReadonlyArray<{ path: string; sha384: string }>): string {
  const lines = files.map((f) => `${f.path}:${f.sha384}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 12);
}

/** The folder of one release's files: `<data_dir>/releases/<service>/<version>/`. */
export function releaseDir(root: string, service: string, version: string): string {
  return join(root, service, version);
}

function inside(base: string, path: string): string {
  const full = resolve(base, ...path.split('/'));
  if (!full.startsWith(resolve(base) + sep)) throw new Error('release file path escapes its folder');
  return full;
}

/**
 * Writes one file of a release, never over an existing one (`wx`): a release's files are written once, at
 * publication, and the only later change is their deletion with the release. An existing file with the same
 * bytes (an upload retried) is accepted.
 */
export async function writeReleaseFile(dir: string, path: string, bytes: Uint8Array): Promise<void> {
  const file = inside(dir, path);
  await mkdir(dirname(file), { recursive: true, mode: 0o755 });
  try {
    await writeFile(file, bytes, { flag: 'wx', mode: 0o444 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const existing = await readFile(file);
    if (!existing.equals(bytes)) throw new Error('a different file is already stored at this path');
  }
}

/**
 * Reads one file of a release and checks it against the hash recorded at publication, on every read: the
 * bytes are hashed again each time and compared with `expected` (never with an earlier reading), so a file
 * changed on disk is refused for as long as it differs. `undefined` when there is no such file; `'altered'`
 * when its bytes are not the published ones.
 */
export async function readVerifiedFile(
  dir: string,
  path: string,
  expected: string,
): Promise<Uint8Array | 'altered' | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(inside(dir, path));
  } catch {
    return undefined;
  }
  return sha384Of(bytes) === expected ? new Uint8Array(bytes) : 'altered';
}

/** Where the parts of a file uploaded in several requests gather (a dot folder: no release path can be one). */
function stagingFile(dir: string, path: string): string {
  return inside(join(dir, '.staging'), path);
}

/**
 * Adds one part of a file too large for one request to its staging copy: a part at `offset` 0 starts it
 * afresh (an upload begun again), any other must continue exactly where the copy ends. Answers the staged
 * size, or `'out_of_order'` when `offset` is not where the copy ends.
 */
export async function appendStagedPart(
  dir: string,
  path: string,
  offset: number,
  bytes: Uint8Array,
): Promise<number | 'out_of_order'> {
  const file = stagingFile(dir, path);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  if (offset === 0) {
    await writeFile(file, bytes, { mode: 0o600 });
    return bytes.byteLength;
  }
  const size = await stat(file).then(
    (info) => info.size,
    () => -1,
  );
  if (size !== offset) return 'out_of_order';
  await appendFile(file, bytes);
  return size + bytes.byteLength;
}

/** The staged copy of a file, removed from staging. */
export async function takeStagedFile(dir: string, path: string): Promise<Uint8Array> {
  const file = stagingFile(dir, path);
  const bytes = new Uint8Array(await readFile(file));
  await rm(file, { force: true });
  return bytes;
}

/** Deletes a release's folder (retention); a folder already gone is fine. */
export async function deleteReleaseDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
