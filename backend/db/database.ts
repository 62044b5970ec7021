/**
 * The database handle the backend uses: a small subset both PGlite and node-postgres provide, so the same
 * SQL runs on the embedded PGlite (default) and on a PostgreSQL server (`PLATFORM_DATABASE_URL`).
 */
export interface Database {
  /** Runs one parameterised statement (`$1`, `$2`, ...). */
  query<T = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
  ): Promise<{ rows: T[]; affectedRows?: number }>;
  /**
   * Runs several statements without parameters: schema SQL (migrations). On a PostgreSQL server, processes
   * take turns to run it (backend/db/postgres.ts).
   */
  exec(sql: string): Promise<void>;
  /** Runs `fn` in a transaction; statements inside must use the given handle. */
  transaction<T>(fn: (tx: Pick<Database, 'query'>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * The database under any wrapper (a measured one, backend/metrics): what identifies this database to
   * whoever keys state by database, such as the in-memory key of a test's vault. Absent: the handle itself.
   */
  readonly identity?: object;
  /** The connection pool's state, where there is a pool (PostgreSQL); the embedded database has none. */
  connections?(): ConnectionPoolState;
}

/** Connections of a pool: open, idle, callers waiting for one, and the most it opens. */
export interface ConnectionPoolState {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/** The object that stands for `db` whatever wraps it ({@link Database.identity}). */
export function databaseIdentity(db: Database): object {
  return db.identity ?? db;
}
