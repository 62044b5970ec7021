import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Database } from './database';
import { runMigrations } from './migrations';

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** State directory; the embedded database lives in `<dataDir>/db` and survives restarts. */
  dataDir?: string;
  /** A PostgreSQL URL (`PLATFORM_DATABASE_URL`): use a server through node-postgres instead of PGlite. */
  databaseUrl?: string;
  /** An in-memory PGlite (tests); nothing is written to disk. */
  memory?: boolean;
  /**
   * PGlite only: compile its WASM with V8's optimising tier too (`server.pglite_optimize`); default the
   * baseline compiler alone (docs/performance.md#memory).
   */
  optimizeWasm?: boolean;
  /**
   * PGlite only: acknowledge writes before the WAL holding them is synced (`server.risk_losing_writes_on_power_loss`,
   * docs/operators.md#durability); default false.
   */
  unsyncedCommits?: boolean;
}

/**
 * Opens the platform's database and runs every registered migration: node-postgres when `databaseUrl` is
 * set, else PGlite (Postgres in WASM) in memory or under `<dataDir>/db`. The drivers are imported on use so
 * a process that talks to PostgreSQL never loads the WASM build.
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  let db: Database;
  if (options.databaseUrl) {
    const { openPostgres } = await import('./postgres');
    db = await openPostgres(options.databaseUrl);
  } else {
    const { openPglite } = await import('./pglite');
    let dir: string | undefined;
    if (!options.memory) {
      dir = join(resolve(options.dataDir ?? '.platform'), 'db');
      mkdirSync(dir, { recursive: true });
    }
    db = await openPglite(dir, {
      optimizeWasm: options.optimizeWasm,
      unsyncedCommits: options.unsyncedCommits,
    });
  }
  try {
    await runMigrations(db);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}
