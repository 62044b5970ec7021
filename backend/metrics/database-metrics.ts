/**
 * The database as `/metrics` sees it: every statement counted and timed by kind, statements slower than
 * `server.slow_statement_ms` counted apart, statements in flight, and the pool's connections where there is
 * a pool. A decorator over {@link Database}: the stores above it are unchanged. Statement text and
 * parameters are never recorded (they may hold personal data); the kind is the statement's first keyword.
 */
import { type Database, databaseIdentity } from '../db/database';
import type { MetricFamily } from './open-metrics';
import { DurationHistogram, LATENCY_BOUNDS_S, LabelledCounter, type MetricsCollector } from './registry';

const KINDS = new Set(['select', 'insert', 'update', 'delete', 'with']);

/** `select`, `insert`, `update`, `delete`, `with`, or `other` (DDL, ANALYZE, transaction control). */
export function statementKind(sql: string): string {
  const word = /^\s*([a-z]+)/i.exec(sql)?.[1]?.toLowerCase() ?? '';
  return KINDS.has(word) ? word : 'other';
}

/** A database whose statements are measured, and the collector that reports them. */
export interface InstrumentedDatabase {
  db: Database;
  collect: MetricsCollector;
}

/** Wraps `inner`; a statement that takes at least `slowMs` milliseconds counts as slow. */
export function instrumentDatabase(inner: Database, slowMs: number): InstrumentedDatabase {
  const durations = new DurationHistogram(LATENCY_BOUNDS_S);
  const slow = new LabelledCounter();
  const failed = new LabelledCounter();
  let inFlight = 0;

  async function measured<T>(sql: string, run: () => Promise<T>): Promise<T> {
    const kind = statementKind(sql);
    const start = performance.now();
    inFlight += 1;
    try {
      return await run();
    } catch (err) {
      failed.add({ kind });
      throw err;
    } finally {
      inFlight -= 1;
      const ms = performance.now() - start;
      durations.observe({ kind }, ms / 1000);
      if (ms >= slowMs) slow.add({ kind });
    }
  }

  const db: Database = {
    query: (sql, params) => measured(sql, () => inner.query(sql, params)),
    exec: (sql) => measured(sql, () => inner.exec(sql)),
    transaction: (fn) =>
      inner.transaction((tx) => fn({ query: (sql, params) => measured(sql, () => tx.query(sql, params)) })),
    close: () => inner.close(),
    identity: databaseIdentity(inner),
    ...(inner.connections ? { connections: () => inner.connections!() } : {}),
  };

  const collect: MetricsCollector = () => {
    const families: MetricFamily[] = [
      {
        type: 'histogram',
        name: 'platform_db_statement_duration_seconds',
        help: 'Time of each database statement, by kind (its first keyword).',
        bounds: durations.bounds,
        samples: durations.samples(),
      },
      {
        type: 'counter',
        name: 'platform_db_slow_statements',
        help: `Statements that took at least ${slowMs} ms (server.slow_statement_ms), by kind.`,
        samples: slow.samples(),
      },
      {
        type: 'counter',
        name: 'platform_db_failed_statements',
        help: 'Statements the database refused or that failed, by kind.',
        samples: failed.samples(),
      },
      {
        type: 'gauge',
        name: 'platform_db_statements_in_flight',
        help: 'Statements sent and not yet answered (queued ones included).',
        samples: [{ value: inFlight }],
      },
    ];
    const pool = inner.connections?.();
    if (pool) {
      families.push({
        type: 'gauge',
        name: 'platform_db_connections',
        help: 'Connections of the pool to the PostgreSQL server, by state; max is the most it opens.',
        samples: [
          { labels: { state: 'open' }, value: pool.total },
          { labels: { state: 'idle' }, value: pool.idle },
          { labels: { state: 'waiting' }, value: pool.waiting },
          { labels: { state: 'max' }, value: pool.max },
        ],
      });
    }
    return families;
  };

  return { db, collect };
}
