import { PGlite } from '@electric-sql/pglite';
import type { Database } from './database';
import { chooseWasmTiering, initdbOutOfProcess, pgliteStartParams } from './pglite-settings';

/** Options of {@link openPglite}. */
export interface PgliteOptions {
  /** Keep V8's optimising tier for the WASM module (`server.pglite_optimize`); default baseline code only. */
  optimizeWasm?: boolean;
}

/**
 * The embedded database: PGlite in memory (`dir` undefined) or persisted under `dir`. PGlite runs one
 * statement at a time, so concurrent callers queue inside it; a transaction holds the queue until it ends.
 * A new cluster on disk is created in a child process and Postgres runs with small buffers and baseline
 * WASM code, which keeps an idle server's resident set small (docs/performance.md#memory).
 */
export async function openPglite(dir?: string, options: PgliteOptions = {}): Promise<Database> {
  chooseWasmTiering(options.optimizeWasm ?? false);
  if (dir) await initdbOutOfProcess(dir);
  const pg = new PGlite({ dataDir: dir, startParams: pgliteStartParams() });
  await pg.waitReady;
  let closed = false;
  return {
    async query<T>(sql: string, params: unknown[] = []) {
      const result = await pg.query<T>(sql, params);
      return { rows: result.rows, affectedRows: result.affectedRows };
    },
    async exec(sql: string) {
      await pg.exec(sql);
    },
    transaction<T>(fn: (tx: Pick<Database, 'query'>) => Promise<T>) {
      return pg.transaction(async (tx) =>
        fn({
          async query<R>(sql: string, params: unknown[] = []) {
            const result = await tx.query<R>(sql, params);
            return { rows: result.rows, affectedRows: result.affectedRows };
          },
        }),
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      await pg.close();
    },
  };
}
