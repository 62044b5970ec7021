/**
 * CSV imports as background jobs in `/metrics` (docs/operators.md#metrics): imports not finished, the rows
 * they still have to settle, and the rows this process has settled (its throughput). The first two are read
 * from the imports' own tables on each scrape, over the unfinished imports only.
 */
import type { Database } from '../db/database';
import type { ImportStore } from '../import/import-store';
import type { MetricsCollector } from './registry';

const BACKLOG_SQL = `SELECT count(*) AS unfinished,
    coalesce(sum(i.total - (SELECT count(*) FROM import_rows r WHERE r.import_id = i.id)), 0) AS remaining
  FROM imports i WHERE i.finished IS NULL`;

/** `store` with its settled rows counted, and the collector that reports the jobs. */
export function importJobMetrics(
  store: ImportStore,
  db: Pick<Database, 'query'>,
): { store: ImportStore; collect: MetricsCollector } {
  let settled = 0;
  const counted: ImportStore = {
    open: (job) => store.open(job),
    get: (id) => store.get(id),
    settledRows: (id) => store.settledRows(id),
    counts: (id) => store.counts(id),
    problems: (id, limit) => store.problems(id, limit),
    async settle(id, doctype, rows) {
      const created = await store.settle(id, doctype, rows);
      settled += rows.length;
      return created;
    },
    finish: (id) => store.finish(id),
  };
  const collect: MetricsCollector = async () => {
    const row = (await db.query<{ unfinished: number | string; remaining: number | string }>(BACKLOG_SQL))
      .rows[0];
    return [
      {
        type: 'gauge',
        name: 'platform_jobs_unfinished',
        help: 'Background jobs started and not finished, by kind.',
        samples: [{ labels: { kind: 'import' }, value: Number(row?.unfinished ?? 0) }],
      },
      {
        type: 'gauge',
        name: 'platform_job_items_remaining',
        help: 'Items unfinished jobs still have to process (rows of CSV imports), by kind.',
        samples: [{ labels: { kind: 'import' }, value: Number(row?.remaining ?? 0) }],
      },
      {
        type: 'counter',
        name: 'platform_job_items_processed',
        help: 'Items this process has processed for jobs (import rows settled: created or refused), by kind.',
        samples: [{ labels: { kind: 'import' }, value: settled }],
      },
    ];
  };
  return { store: counted, collect };
}
