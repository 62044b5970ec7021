import { existsSync, readdirSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { acquireLockFile, type HeldLock } from './lock-file';

/** Name of the lock file inside a data directory. */
export const DATA_DIR_LOCK = 'server.lock';

/**
 * Makes every file a process creates from now on private (0600 files, 0700 directories): the embedded
 * database's files and write-ahead log hold personal data and password hashes.
 */
export function restrictUmask(): void {
  process.umask(0o077);
}

/**
 * Removes group and other permissions from `dir` and everything under it (files written by an older version
 * were readable by everyone). Symbolic links are not followed.
 */
export async function restrictTree(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined);
  if (!info || info.isSymbolicLink()) return;
  if ((info.mode & 0o077) !== 0) await chmod(dir, info.mode & 0o700);
  if (!info.isDirectory()) return;
  for (const entry of await readdir(dir)) await restrictTree(join(dir, entry));
}

/** A data directory this process owns until `release()`. */
export interface OwnedDataDir {
  dir: string;
  release(): void;
}

/**
 * Claims a data directory for one server process (docs/operators.md#one-process-per-data-directory):
 * creates it (0700), tightens the modes of what it holds, and takes `<dir>/server.lock`. A second process on the
 * same directory fails with `data_dir_locked` naming the holder's PID; a lock left by a killed process is taken
 * over.
 */
export async function claimDataDir(dataDir: string, purpose = 'm serve'): Promise<OwnedDataDir> {
  const dir = resolve(dataDir);
  restrictUmask();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const lock: HeldLock = await acquireLockFile(join(dir, DATA_DIR_LOCK), purpose);
  try {
    await restrictTree(dir);
  } catch (err) {
    lock.release();
    throw err;
  }
  return { dir, release: () => lock.release() };
}

/**
 * Refuses a data directory that holds no embedded database when there is no PostgreSQL URL either: a
 * command checking or changing an existing database (`m audit verify`, `m keys rewrap`, `m user list`)
 * would otherwise create a new, empty one there (a typo, a PostgreSQL deployment run without its URL) and
 * report on nothing. PGlite writes `db/PG_VERSION` when it creates a database.
 */
export function requireExistingDatabase(dataDir: string, databaseUrl: string | undefined): void {
  if (databaseUrl || existsSync(join(resolve(dataDir), 'db', 'PG_VERSION'))) return;
  throw new Error(
    `${resolve(dataDir)} holds no database: give the server's data directory (--data-dir), or its PostgreSQL URL (PLATFORM_DATABASE_URL)`,
  );
}

/**
 * Where a MACROSERVICE service started from `dataDir` keeps its own state (database, keys, locks):
 * `<dataDir>/services/<app>`, one process per directory (docs/operators.md#one-process-per-data-directory).
 */
export function serviceDataDir(dataDir: string, app: string): string {
  return join(dataDir, 'services', app);
}

/**
 * The services whose own data directories ({@link serviceDataDir}, with a database) lie under `dataDir`:
 * a MACROSERVICE gateway's directory, whose own database holds no records and no audit log. An offline
 * command pointed at it would find nothing to do and report success; it names these instead.
 */
export function servicesUnder(dataDir: string): string[] {
  const root = join(resolve(dataDir), 'services');
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names.filter((name) => existsSync(join(root, name, 'db', 'PG_VERSION'))).sort();
}

/**
 * The refusal of a gateway's directory by an offline command that acts on one service's `what`, ending with
 * what to run instead (`remedy`, which may name the services' directory as `<dir>`).
 */
export function gatewayDirectoryError(
  dataDir: string,
  services: readonly string[],
  what: string,
  remedy: string,
): Error {
  const own = serviceDataDir(resolve(dataDir), '<app>');
  return new Error(
    `${resolve(dataDir)} is a MACROSERVICE gateway's data directory, which holds no ${what}: each service keeps its own in ${own} (here: ${services.join(', ')}); ${remedy.replace('<dir>', own)}`,
  );
}
