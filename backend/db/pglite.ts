import { closeSync, fdatasync, fsync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import type { Database } from './database';
import { markEmbedded } from './embedded';
import { GroupSync } from './group-sync';
import { chooseWasmTiering, initdbOutOfProcess, pgliteStartParams } from './pglite-settings';

const fdatasyncAsync = promisify(fdatasync);
const fsyncAsync = promisify(fsync);

/** Options of {@link openPglite}. */
export interface PgliteOptions {
  /** Keep V8's optimising tier for the WASM module (`server.pglite_optimize`); default baseline code only. */
  optimizeWasm?: boolean;
  /**
   * Answer a write before the WAL holding it is synced to disk (`server.risk_losing_writes_on_power_loss`):
   * faster, and a power loss or kernel crash loses the writes acknowledged since the operating system last
   * wrote its cache back. Default false: every write is synced before it is acknowledged.
   */
  unsyncedCommits?: boolean;
}

/** A WAL segment's file name: 24 hexadecimal digits (timeline, log and segment numbers). */
const SEGMENT = /^[0-9A-F]{24}$/;

/**
 * Syncs the write-ahead log PGlite writes through Node's file system, which never syncs it itself: PGlite's
 * Postgres writes each commit's WAL records into the current segment of `pg_wal` with plain writes, so
 * without this a power loss or kernel crash loses every acknowledged write the kernel had not written back
 * yet. One `fdatasync` of the current segment covers every commit written before it started, so callers that
 * ask while a sync is running share the next one (group commit): under concurrency there are fewer syncs than
 * commits. When the current segment changes, the previous one is synced too (a commit may end in it) and so
 * is the `pg_wal` directory, which then holds a new file name.
 */
export class WalSync {
  readonly #walDir: string;
  readonly #syncFile: (fd: number) => Promise<void>;
  #segment: string | undefined;
  #fd: number | undefined;
  readonly #group = new GroupSync(() => this.#round());

  /** `syncFile` syncs one open segment's data (default `fdatasync`); tests count its calls. */
  constructor(walDir: string, syncFile: (fd: number) => Promise<void> = fdatasyncAsync) {
    this.#walDir = walDir;
    this.#syncFile = syncFile;
  }

  /** Resolves once everything written to the WAL before this call is on stable storage. */
  sync(): Promise<void> {
    return this.#group.sync();
  }

  async #round(): Promise<void> {
    let newest: string | undefined;
    for (const name of readdirSync(this.#walDir)) {
      if (SEGMENT.test(name) && (newest === undefined || name > newest)) newest = name;
    }
    if (newest !== undefined && newest !== this.#segment) {
      const previous = this.#fd;
      this.#fd = openSync(join(this.#walDir, newest), 'r');
      this.#segment = newest;
      if (previous !== undefined) {
        try {
          await this.#syncFile(previous);
        } finally {
          closeSync(previous);
        }
      }
      const dir = openSync(this.#walDir, 'r');
      try {
        await fsyncAsync(dir);
      } finally {
        closeSync(dir);
      }
    }
    if (this.#fd !== undefined) await this.#syncFile(this.#fd);
  }

  /** Waits for a sync in progress and closes the segment. */
  async close(): Promise<void> {
    await this.#group.settled();
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** True for a statement that only reads (a plain `SELECT`): it commits nothing that needs syncing. */
function readsOnly(sql: string): boolean {
  return /^\s*select\b/i.test(sql);
}

/**
 * The embedded database: PGlite in memory (`dir` undefined) or persisted under `dir`. PGlite runs one
 * statement at a time, so concurrent callers queue inside it; a transaction holds the queue until it ends.
 * A new cluster on disk is created in a child process and Postgres runs with small buffers and baseline
 * WASM code, which keeps an idle server's resident set small (docs/performance.md#memory).
 *
 * On disk, a statement that may write (anything but a plain `SELECT`), an `exec` and a transaction resolve
 * only once the WAL holding them is synced ({@link WalSync}; docs/operators.md#durability), unless
 * `unsyncedCommits` trades that for speed.
 */
export async function openPglite(dir?: string, options: PgliteOptions = {}): Promise<Database> {
  chooseWasmTiering(options.optimizeWasm ?? false);
  if (dir) await initdbOutOfProcess(dir);
  const pg = new PGlite({ dataDir: dir, startParams: pgliteStartParams() });
  await pg.waitReady;
  const wal = dir && !options.unsyncedCommits ? new WalSync(join(dir, 'pg_wal')) : undefined;
  let closed = false;
  const db: Database = {
    async query<T>(sql: string, params: unknown[] = []) {
      const result = await pg.query<T>(sql, params);
      if (wal && !readsOnly(sql)) await wal.sync();
      return { rows: result.rows, affectedRows: result.affectedRows };
    },
    async exec(sql: string) {
      await pg.exec(sql);
      await wal?.sync();
    },
    async transaction<T>(fn: (tx: Pick<Database, 'query'>) => Promise<T>) {
      const result = await pg.transaction(async (tx) =>
        fn({
          async query<R>(sql: string, params: unknown[] = []) {
            const result = await tx.query<R>(sql, params);
            return { rows: result.rows, affectedRows: result.affectedRows };
          },
        }),
      );
      await wal?.sync();
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      await wal?.close();
      await pg.close();
    },
  };
  markEmbedded(db, { dir });
  return db;
}
