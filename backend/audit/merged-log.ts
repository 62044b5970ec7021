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
  for (const key of ['doctype', 'record', 'user', 'from', 'to'] as const) {
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
 * The services' logs merged into one, in the order asked for (docs/operators.md#the-audit-log): each service
 * is asked for its entries matching the filters in that order (it checks the caller's rights), read a page
 * of `pageLength` at a time through a cursor of its own, and the cursors' next entries are merged by time.
 */
export class MergedLog {
  readonly #cursors: ServiceCursor[];

  constructor(
    services: readonly ServiceManifest[],
    private readonly query: AuditQuery & { newestFirst: boolean },
    pageLength: number,
    access: ServiceLogAccess,
  ) {
    const filters = { ...query, start: 0 };
    this.#cursors = services.map((m) => new ServiceCursor(m, filters, pageLength, access));
  }

  /** Asks every service for its first page, even for an empty window; the sum of the totals they answer. */
  async open(): Promise<number> {
    await Promise.all(this.#cursors.map((cursor) => cursor.peek()));
    return this.#cursors.reduce((sum, cursor) => sum + cursor.total, 0);
  }

  /** The next entry of the merged log; undefined at its end. */
  async next(): Promise<AuditEntry | undefined> {
    const heads = await Promise.all(this.#cursors.map((cursor) => cursor.peek()));
    let first = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i];
      if (head && (first < 0 || before(head, heads[first]!, this.query.newestFirst))) first = i;
    }
    if (first < 0) return undefined;
    this.#cursors[first]!.shift();
    return heads[first];
  }

  /** Up to `count` next entries; fewer only at the end. */
  async take(count: number): Promise<AuditEntry[]> {
    const out: AuditEntry[] = [];
    while (out.length < count) {
      const entry = await this.next();
      if (!entry) break;
      out.push(entry);
    }
    return out;
  }
}

/**
 * One page of the services' logs merged ({@link MergedLog}), skipping `start` merged entries and keeping
 * `limit`; `total` is the sum of the services' totals. A deep page reads every service's entries up to it,
 * a page at a time.
 */
export async function mergedPage(
  services: readonly ServiceManifest[],
  query: AuditQuery & { start: number; limit: number; newestFirst: boolean },
  access: ServiceLogAccess,
): Promise<MergedPage> {
  // The first page asked of each service covers the whole window: one request each for the usual page.
  const pageLength = Math.max(1, Math.min(MAX_AUDIT_PAGE, query.start + query.limit));
  const merged = new MergedLog(services, query, pageLength, access);
  const total = await merged.open();
  for (let skipped = 0; skipped < query.start; skipped++) {
    if (!(await merged.next())) break;
  }
  return { data: await merged.take(query.limit), total };
}
