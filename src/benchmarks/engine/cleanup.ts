import type { CreatedRecords } from './created-records';
import type { Runtime } from './types';
import { VirtualUser } from './virtual-user';

/** What a generator left in the target, and what `--cleanup` removed. */
export interface CleanupSummary {
  /** Records the run created and did not delete itself. */
  left: number;
  /** Of those, deleted by `--cleanup`. */
  deleted: number;
  /** Deletes that failed (status and record kept for the report). */
  failed: Array<{ url: string; status: number | string }>;
}

/** Deletes sent at once while cleaning up. */
const CONCURRENCY = 8;

/**
 * Deletes every record the run created and did not delete, with the credentials that created it (404
 * counts as deleted: something else removed it). Without `apply`, only counts them.
 */
export async function cleanUp(rt: Runtime, created: CreatedRecords, apply: boolean): Promise<CleanupSummary> {
  const records = created.list();
  const summary: CleanupSummary = { left: records.length, deleted: 0, failed: [] };
  if (!apply || records.length === 0) return summary;
  const user = new VirtualUser(-2, rt);
  let next = 0;
  const lane = async () => {
    while (next < records.length) {
      const r = records[next++]!;
      try {
        const res = await user.send(r.auth, { method: 'DELETE', url: r.url, service: r.service });
        if (res.status < 300 || res.status === 404) {
          summary.deleted++;
          created.remove(r.url);
        } else summary.failed.push({ url: r.url, status: res.status });
      } catch (err) {
        summary.failed.push({ url: r.url, status: (err as { code?: string }).code ?? 'error' });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, records.length) }, lane));
  return summary;
}

/** Adds up the summaries of several generators. */
export function mergeCleanup(list: CleanupSummary[]): CleanupSummary {
  return {
    left: list.reduce((n, s) => n + s.left, 0),
    deleted: list.reduce((n, s) => n + s.deleted, 0),
    failed: list.flatMap((s) => s.failed),
  };
}
