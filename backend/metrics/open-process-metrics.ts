/**
 * The metrics of one server process (docs/operators.md#metrics), composed by the roots: the process's own
 * figures, its requests, its database statements and the database's statistics. The database handed back
 * is the measured one: every store of the process must be built over it.
 */
import type { Database } from '../db/database';
import type { CleanupStack } from '../lifecycle/cleanup-stack';
import { instrumentDatabase } from './database-metrics';
import { databaseStatistics } from './database-statistics';
import { type RequestMetrics, requestMetrics } from './http-metrics';
import { processMetrics } from './process-metrics';
import { MetricsRegistry } from './registry';

/** What the app needs of a process's metrics: the registry to read and the request counter to mount. */
export interface ProcessMetrics {
  registry: MetricsRegistry;
  requests: RequestMetrics;
}

/** Opens the process's metrics over `db`; the loop sampler stops with `stack`. */
export function openProcessMetrics(
  db: Database,
  options: { slowStatementMs: number },
  stack: CleanupStack,
): { db: Database; metrics: ProcessMetrics } {
  const registry = new MetricsRegistry();
  const own = processMetrics();
  stack.defer(async () => own.stop());
  registry.register('process', own.collect);
  const requests = requestMetrics();
  registry.register('requests', requests.collect);
  const measured = instrumentDatabase(db, options.slowStatementMs);
  registry.register('statements', measured.collect);
  registry.register('database', databaseStatistics(db));
  return { db: measured.db, metrics: { registry, requests } };
}
