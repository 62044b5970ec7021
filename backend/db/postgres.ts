import pg from 'pg';
import type { Database } from './database';

/**
 * The advisory lock key every process takes while it runs schema SQL on the server (any constant; the
 * platform takes no other advisory lock). Processes starting at once against one database, as the services
 * of a MACROSERVICE deployment do, would otherwise run the same `CREATE ... IF NOT EXISTS` and
 * `CREATE OR REPLACE FUNCTION` together, and PostgreSQL answers such races over its catalog with a
 * deadlock or a duplicate-key error instead of waiting.
 */
const SCHEMA_LOCK = 7_246_013;

/**
 * A PostgreSQL server through a node-postgres pool (`PLATFORM_DATABASE_URL`). The first query checks the
 * connection so a wrong URL stops the start instead of the first request.
 */
export async function openPostgres(url: string): Promise<Database> {
  const max = 10;
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    throw new Error(`cannot connect to the database at PLATFORM_DATABASE_URL: ${(err as Error).message}`);
  }
  let closed = false;
  return {
    async query<T>(sql: string, params: unknown[] = []) {
      const result = await pool.query(sql, params);
      return { rows: result.rows as T[], affectedRows: result.rowCount ?? undefined };
    },
    async exec(sql: string) {
      // One simple-protocol query: its statements run as one transaction, which holds the lock to its end.
      await pool.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK});\n${sql}`);
    },
    async transaction<T>(fn: (tx: Pick<Database, 'query'>) => Promise<T>) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const value = await fn({
          async query<R>(sql: string, params: unknown[] = []) {
            const result = await client.query(sql, params);
            return { rows: result.rows as R[], affectedRows: result.rowCount ?? undefined };
          },
        });
        await client.query('COMMIT');
        return value;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    connections: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max,
    }),
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
