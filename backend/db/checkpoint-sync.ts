import { closeSync, fsync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const fsyncAsync = promisify(fsync);

/**
 * Tells when the embedded database has completed a checkpoint since it last asked: Postgres rewrites
 * `global/pg_control` at the end of each one. Asking costs one `stat`.
 */
export class CheckpointWatch {
  readonly #control: string;
  #seen: number;

  /** Watches the cluster in `dataDir` (the folder holding `global/` and `pg_wal/`). */
  constructor(dataDir: string) {
    this.#control = join(dataDir, 'global', 'pg_control');
    this.#seen = Number.NaN;
  }

  /**
   * True when a checkpoint completed since the last call; the first call is always true, since a start
   * after a crash ends its recovery with a checkpoint of its own.
   */
  changed(): boolean {
    const stamp = this.#stamp();
    if (stamp === this.#seen) return false;
    this.#seen = stamp;
    return true;
  }

  #stamp(): number {
    return statSync(this.#control, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  }
}

/**
 * Syncs every file and folder under `dir` to stable storage. PGlite runs Postgres with `fsync` off, so a
 * checkpoint writes the tables' pages without syncing them, then recycles the WAL that could have redone
 * them: until the kernel writes its cache back, a power loss would lose both. Syncing the cluster once a
 * checkpoint completed closes that gap (docs/operators.md#durability). A file removed meanwhile is skipped.
 */
export async function syncTree(dir: string): Promise<void> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await syncTree(path);
    else if (entry.isFile()) await syncPath(path);
  }
  await syncPath(dir);
}

/** Syncs one file, or a folder's list of entries, to stable storage; a path removed meanwhile is skipped. */
export async function syncPath(path: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
}
