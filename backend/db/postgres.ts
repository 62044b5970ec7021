import pg from 'pg';
import type { Database } from './database';

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
      await pool.query(sql);
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
