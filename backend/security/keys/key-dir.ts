import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withLockFile } from '../../data-dir/lock-file';
import { generateKeyMaterial } from './key-material';

/** Lock file serialising changes to a key directory (a server's first start, `m keys rotate`). */
export const KEYRING_LOCK = 'keyring.lock';

/** File name of the key ring index inside the key directory. */
export const KEYRING_FILE = 'keyring.json';

/** One entry of `keyring.json`: metadata only; the private key lives in `<kid>.pem` (mode 0600). */
export interface KeyRingEntry {
  kid: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601, or null for the active key. */
  retired_at: string | null;
}

/** The parsed `keyring.json`, newest key first. */
export interface KeyRingFile {
  keys: KeyRingEntry[];
}

/** Path of a key's private PEM inside the key directory. The kid is a base64url thumbprint, never a path. */
export function pemPath(dir: string, kid: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(kid)) throw new Error('invalid kid in keyring.json');
  return join(dir, `${kid}.pem`);
}

/** Reads `keyring.json`; a missing file is an empty ring. */
export async function readKeyRing(dir: string): Promise<KeyRingFile> {
  let text: string;
  try {
    text = await readFile(join(dir, KEYRING_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { keys: [] };
    throw err;
  }
  const parsed = JSON.parse(text) as KeyRingFile;
  if (!Array.isArray(parsed.keys)) throw new Error(`${join(dir, KEYRING_FILE)}: "keys" is not a list`);
  return parsed;
}

/** The modification stamp of `keyring.json` (changes on every rotation), or null when absent. */
export async function keyRingStamp(dir: string): Promise<string | null> {
  try {
    const s = await stat(join(dir, KEYRING_FILE));
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return null;
  }
}

async function writeKeyRing(dir: string, ring: KeyRingFile): Promise<void> {
  // Write then rename: a reader (a running server) never sees a half-written index.
  const tmp = join(dir, `${KEYRING_FILE}.${process.pid}.tmp`);
  await writeFile(tmp, `${JSON.stringify(ring, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, join(dir, KEYRING_FILE));
}

/** Options of {@link rotateKeyDir}. */
export interface RotateOptions {
  /** Retired keys older than this (after retirement) are deleted. */
  graceMs: number;
  now?: () => number;
}

/**
 * Generates a new active key in `dir` (created with mode 0700 when missing), retires the previous active key
 * (it keeps decrypting for the grace period) and deletes keys whose grace period has ended.
 * Used on first start and by `m keys rotate`. Returns the new kid.
 */
export async function rotateKeyDir(dir: string, options: RotateOptions): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return withLockFile(join(dir, KEYRING_LOCK), 'a key rotation', () => rotateLocked(dir, options));
}

/**
 * The rotation itself, run under the key directory's lock: two rotations (or a rotation and a first start)
 * never interleave, so neither loses the other's key; a running server only ever reads whole files.
 */
async function rotateLocked(dir: string, options: RotateOptions): Promise<string> {
  const now = (options.now ?? Date.now)();
  const material = await generateKeyMaterial();
  const file = pemPath(dir, material.kid);
  await writeFile(file, material.privatePem, { mode: 0o600, flag: 'wx' });
  await chmod(file, 0o600); // the mode of writeFile is filtered by the umask; make it exact
  const ring = await readKeyRing(dir);
  const stamp = new Date(now).toISOString();
  const kept: KeyRingEntry[] = [];
  for (const entry of ring.keys) {
    const retiredAt = entry.retired_at ?? stamp;
    if (Date.parse(retiredAt) + options.graceMs <= now) {
      await rm(pemPath(dir, entry.kid), { force: true });
      continue;
    }
    kept.push({ ...entry, retired_at: retiredAt });
  }
  await writeKeyRing(dir, { keys: [{ kid: material.kid, created_at: stamp, retired_at: null }, ...kept] });
  return material.kid;
}

/** Creates the first key when the directory holds none (first start). Returns true when it created one. */
export async function ensureKeyDir(dir: string, options: RotateOptions): Promise<boolean> {
  const ring = await readKeyRing(dir);
  if (ring.keys.some((k) => k.retired_at === null)) return false;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return withLockFile(join(dir, KEYRING_LOCK), 'a key rotation', async () => {
    const again = await readKeyRing(dir);
    if (again.keys.some((k) => k.retired_at === null)) return false;
    await rotateLocked(dir, options);
    return true;
  });
}
