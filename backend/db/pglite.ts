import { closeSync, fdatasync, fsync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { CheckpointWatch, syncTree } from './checkpoint-sync';
import type { Database } from './database';
import { markEmbedded } from './embedded';
import { GroupSync } from './group-sync';
import { keepFileSizes, type NodeFsOps } from './pglite-file-sizes';
import { chooseWasmTiering, createCluster, pgliteStartParams } from './pglite-settings';
import { PreparedStatements } from './pglite-statements';
import { startFromTemplate, templatePath } from './pglite-template';
import {
  holdsSegment,
  nextSegmentName,
  type OpenSegment,
  openCurrentSegment,
  openIfPresent,
} from './wal-segments';

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

/**
 * Syncs the write-ahead log PGlite writes through Node's file system, which never syncs it itself: PGlite's
 * Postgres writes each commit's WAL records into the current segment of `pg_wal` with plain writes, so
 * without this a power loss or kernel crash loses every acknowledged write the kernel had not written back
 * yet. One `fdatasync` of the current segment covers every commit written before it started, so callers that
 * ask while a sync is running share the next one (group commit): under concurrency there are fewer syncs than
 * commits.
 *
 * Which segment is current is read from the segments themselves, not from their names: after a checkpoint
 * `pg_wal` also holds old segments recycled under future names (wal-segments.ts). Postgres writes its
 * segments in order, so each round looks only at the one after the current: once its first page is its own,
 * Postgres has moved on, and the previous segment (a commit may end in it), the new one and the `pg_wal`
 * directory (which holds a new file name) are synced. A round that finds a checkpoint completed since the
 * last one also syncs the whole cluster first (checkpoint-sync.ts).
 */
export class WalSync {
  readonly #walDir: string;
  readonly #syncFile: (fd: number) => Promise<void>;
  #current: OpenSegment | undefined;
  /** The segment after the current one, once its file exists (prepared or recycled ahead of use). */
  #next: { name: string; fd: number } | undefined;
  readonly #group = new GroupSync(() => this.#round());
  readonly #checkpoints: CheckpointWatch;
  readonly #syncCluster: () => Promise<void>;

  /**
   * `syncFile` syncs one open segment's data (default `fdatasync`), `syncCluster` the cluster after a
   * checkpoint (default every file of the folder holding `walDir`); tests count their calls.
   */
  constructor(
    walDir: string,
    syncFile: (fd: number) => Promise<void> = fdatasyncAsync,
    syncCluster: () => Promise<void> = () => syncTree(dirname(walDir)),
  ) {
    this.#walDir = walDir;
    this.#syncFile = syncFile;
    this.#checkpoints = new CheckpointWatch(dirname(walDir));
    this.#syncCluster = syncCluster;
  }

  /** Resolves once everything written to the WAL before this call is on stable storage. */
  sync(): Promise<void> {
    return this.#group.sync();
  }

  async #round(): Promise<void> {
    if (this.#checkpoints.changed()) await this.#syncCluster();
    let moved = false;
    if (!this.#current) {
      this.#current = openCurrentSegment(this.#walDir);
      if (!this.#current) return;
      moved = true;
    }
    for (let next = this.#following(); next && holdsSegment(next.fd, next.name, this.#current.size); ) {
      const previous = this.#current.fd;
      this.#current = { ...next, size: this.#current.size };
      this.#next = undefined;
      moved = true;
      try {
        await this.#syncFile(previous);
      } finally {
        closeSync(previous);
      }
      next = this.#following();
    }
    if (moved) {
      const dir = openSync(this.#walDir, 'r');
      try {
        await fsyncAsync(dir);
      } finally {
        closeSync(dir);
      }
    }
    await this.#syncFile(this.#current.fd);
  }

  /** The segment after the current one, opened once its file exists. */
  #following(): { name: string; fd: number } | undefined {
    if (!this.#next) {
      const name = nextSegmentName(this.#current!.name, this.#current!.size);
      const fd = openIfPresent(join(this.#walDir, name));
      if (fd !== undefined) this.#next = { name, fd };
    }
    return this.#next;
  }

  /** Waits for a sync in progress and closes the segments. */
  async close(): Promise<void> {
    await this.#group.settled();
    for (const open of [this.#current, this.#next]) if (open) closeSync(open.fd);
    this.#current = undefined;
    this.#next = undefined;
  }
}

/** True for a statement that only reads (a plain `SELECT`): it commits nothing that needs syncing. */
function readsOnly(sql: string): boolean {
  return /^\s*select\b/i.test(sql);
}

/** PGlite started on `dir`, or in memory from `template` (a cluster's tar) or from a cluster initdb makes. */
async function startPglite(dir: string | undefined, template?: Blob): Promise<PGlite> {
  const pg = new PGlite({ dataDir: dir, startParams: pgliteStartParams(), loadDataDir: template });
  await pg.waitReady;
  // On disk, Postgres's files go through NODEFS, whose seeks to the end stat the file (pglite-file-sizes.ts).
  const nodefs = (pg.Module as { NODEFS?: NodeFsOps }).NODEFS;
  if (dir && nodefs) keepFileSizes(nodefs);
  return pg;
}

/**
 * The embedded database: PGlite in memory (`dir` undefined) or persisted under `dir`. PGlite runs one
 * statement at a time, so concurrent callers queue inside it; a transaction holds the queue until it ends.
 * A new cluster on disk is a copy of the kept empty cluster where there is one (pglite-template.ts), else
 * made by initdb in a child process, and Postgres runs with small buffers and baseline WASM code, which
 * keeps an idle server's resident set small (docs/performance.md#memory).
 *
 * On disk, a statement that may write (anything but a plain `SELECT`), an `exec` and a transaction resolve
 * only once the WAL holding them is synced ({@link WalSync}; docs/operators.md#durability), unless
 * `unsyncedCommits` trades that for speed.
 */
export async function openPglite(dir?: string, options: PgliteOptions = {}): Promise<Database> {
  chooseWasmTiering(options.optimizeWasm ?? false);
  if (dir) await createCluster(dir, templatePath());
  const pg = dir
    ? await startPglite(dir)
    : await startFromTemplate((template) => startPglite(undefined, template));
  const wal = dir && !options.unsyncedCommits ? new WalSync(join(dir, 'pg_wal')) : undefined;
  const statements = new PreparedStatements(pg);
  let closed = false;
  const db: Database = {
    async query<T>(sql: string, params: unknown[] = []) {
      // PGlite's own `query` takes both locks too: no statement runs inside another caller's transaction.
      const result = await pg._runExclusiveTransaction(() =>
        pg._runExclusiveQuery(() => statements.run<T>(sql, params)),
      );
      if (wal && !readsOnly(sql)) await wal.sync();
      return result;
    },
    async exec(sql: string) {
      await pg.exec(sql);
      await wal?.sync();
    },
    async transaction<T>(fn: (tx: Pick<Database, 'query'>) => Promise<T>) {
      const result = await pg.transaction(async (tx) =>
        fn({
          // The transaction holds PGlite's transaction lock; each statement takes the query lock, as
          // PGlite's `tx.query` does.
          query: <R>(sql: string, params: unknown[] = []) =>
            tx.closed
              ? Promise.reject(new Error('Transaction is closed'))
              : pg._runExclusiveQuery(() => statements.run<R>(sql, params)),
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
      // The close ran a last checkpoint: its pages are synced before the process may end.
      if (wal && dir) await syncTree(dir);
    },
  };
  markEmbedded(db, { dir });
  return db;
}
