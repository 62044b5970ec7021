/**
 * What the database itself counts, read from PostgreSQL's `pg_stat_database` for the current database (the
 * embedded PGlite keeps the same view): backends, commits and rollbacks, blocks read from disk against
 * blocks found in its buffer cache (the cache hit rate is `hit / (hit + read)`), rows written, deadlocks
 * and temporary-file bytes. Read on each scrape with one statement, not counted among the app's statements.
 */
import type { Database } from '../db/database';
import type { MetricFamily } from './open-metrics';
import type { MetricsCollector } from './registry';

interface StatRow {
  numbackends: number | string | null;
  xact_commit: number | string | null;
  xact_rollback: number | string | null;
  blks_read: number | string | null;
  blks_hit: number | string | null;
  tup_inserted: number | string | null;
  tup_updated: number | string | null;
  tup_deleted: number | string | null;
  deadlocks: number | string | null;
  temp_bytes: number | string | null;
}

const STATISTICS_SQL = `SELECT numbackends, xact_commit, xact_rollback, blks_read, blks_hit, tup_inserted,
  tup_updated, tup_deleted, deadlocks, temp_bytes
  FROM pg_stat_database WHERE datname = current_database()`;

/** bigint columns arrive as strings from node-postgres. */
const num = (v: number | string | null): number => (v === null ? 0 : Number(v));

/** A collector over `db` (pass the database itself, not an instrumented wrapper). */
export function databaseStatistics(db: Pick<Database, 'query'>): MetricsCollector {
  return async () => {
    const row = (await db.query<StatRow>(STATISTICS_SQL)).rows[0];
    if (!row) return [];
    const counter = (name: string, help: string, value: number): MetricFamily => ({
      type: 'counter',
      name,
      help,
      samples: [{ value }],
    });
    return [
      {
        type: 'gauge',
        name: 'platform_db_backends',
        help: 'Connections to this database, as the database counts them (all clients).',
        samples: [{ value: num(row.numbackends) }],
      },
      counter('platform_db_transactions_committed', 'Transactions committed.', num(row.xact_commit)),
      counter('platform_db_transactions_rolled_back', 'Transactions rolled back.', num(row.xact_rollback)),
      counter('platform_db_blocks_read', 'Blocks read from disk (buffer cache misses).', num(row.blks_read)),
      counter('platform_db_blocks_hit', 'Blocks found in the buffer cache.', num(row.blks_hit)),
      {
        type: 'counter',
        name: 'platform_db_rows_written',
        help: 'Rows written, by operation.',
        samples: [
          { labels: { op: 'insert' }, value: num(row.tup_inserted) },
          { labels: { op: 'update' }, value: num(row.tup_updated) },
          { labels: { op: 'delete' }, value: num(row.tup_deleted) },
        ],
      },
      counter('platform_db_deadlocks', 'Deadlocks detected.', num(row.deadlocks)),
      counter('platform_db_temp_bytes', 'Bytes written to temporary files by queries.', num(row.temp_bytes)),
    ];
  };
}
