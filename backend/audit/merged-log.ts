import type { ServiceManifest } from '../../src/protocol';
import type { AuditEntry } from '../../src/protocol/audit';
import type { AuditQuery } from './audit-store';
import { MAX_AUDIT_PAGE } from './routes';
import { type ServiceLogAccess, type ServicePage, servicePage } from './service-logs';

/** What {@link mergedPage} answers: the audit API's page shape. */
export type MergedPage = ServicePage;

/** The query string a service's `GET /api/audit` is asked with: the caller's filters and order, a window. */
function serviceQuery(query: AuditQuery, start: number, length: number): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of ['doctype', 'record', 'user'] as const) {
    const value = query[key];
    if (value !== undefined) params.set(key, value);
  }
  params.set('order', query.newestFirst ? 'newest' : 'oldest');
  params.set('limit_start', String(start));
  params.set('limit_page_length', String(length));
  return params;
}

/**
 * Reads one service's log in the order asked for, a page at a time as the merge consumes it: the merge
 * holds at most one page per service.
 */
class ServiceCursor {
  #buffer: AuditEntry[] = [];
  #next = 0;
  #done = false;
  total = 0;

  constructor(
    readonly manifest: ServiceManifest,
    private readonly query: AuditQuery,
    private readonly pageLength: number,
    private readonly access: ServiceLogAccess,
  ) {}

  /** The cursor's next entry, reading the next page when the one held is used up; undefined at the end. */
  async peek(): Promise<AuditEntry | undefined> {
    if (this.#buffer.length === 0 && !this.#done) {
      const page = await servicePage(
        this.manifest,
        serviceQuery(this.query, this.#next, this.pageLength),
        this.access,
      );
      this.total = page.total;
      this.#buffer = page.data;
      this.#next += page.data.length;
      this.#done = page.data.length < this.pageLength || this.#next >= page.total;
    }
    return this.#buffer[0];
  }

  shift(): void {
    this.#buffer.shift();
  }
}

/**
 * Whether `a` comes before `b`: by time (newest first or oldest first), then by service name and position
 * in its chain, so that every answer orders the same entries the same way and pages never overlap.
 */
function before(a: AuditEntry, b: AuditEntry, newestFirst: boolean): boolean {
  if (a.at !== b.at) return newestFirst ? a.at > b.at : a.at < b.at;
  const byService = (a.service ?? '').localeCompare(b.service ?? '');
  if (byService !== 0) return byService < 0;
  return newestFirst ? a.seq > b.seq : a.seq < b.seq;
}

/**
 * One page of the services' logs merged (docs/operators.md#the-audit-log): each service is asked for its
 * entries matching the filters in the order asked for (it checks the caller's rights), and the answers are
 * merged by time with a cursor per service, skipping `start` merged entries and keeping `limit`; `total` is
 * the sum of the services' totals. A deep page reads every service's entries up to it, a page at a time.
 */
export async function mergedPage(
  services: readonly ServiceManifest[],
  query: AuditQuery & { start: number; limit: number; newestFirst: boolean },
  access: ServiceLogAccess,
): Promise<MergedPage> {
  // The first page asked of each service covers the whole window: one request each for the usual page.
  const pageLength = Math.max(1, Math.min(MAX_AUDIT_PAGE, query.start + query.limit));
  const cursors = services.map((m) => new ServiceCursor(m, query, pageLength, access));
  // Every service is asked once, even for an empty window: its total counts.
  await Promise.all(cursors.map((cursor) => cursor.peek()));
  const data: AuditEntry[] = [];
  let skipped = 0;
  while (data.length < query.limit) {
    const heads = await Promise.all(cursors.map((cursor) => cursor.peek()));
    let first = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i];
      if (head && (first < 0 || before(head, heads[first]!, query.newestFirst))) first = i;
    }
    if (first < 0) break;
    cursors[first]!.shift();
    if (skipped < query.start) skipped++;
    else data.push(heads[first]!);
  }
  return { data, total: cursors.reduce((sum, cursor) => sum + cursor.total, 0) };
}
