import { type Context, Hono } from 'hono';
import { EARLIEST_TIME } from '../data/list-query';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { unauthorized } from '../middleware/auth';
import { forbidden } from '../permissions/guard';
import { SYSTEM_MANAGER } from '../permissions/model';
import { rolesOf } from '../permissions/routes';
import { auditCsvResponse } from './audit-csv';
import type { AuditQuery, AuditStore } from './audit-store';
import { parseRecordedHead, type RecordedHead, verifyChain } from './chain';

/** Path of the audit log API. */
export const AUDIT_PATH = '/api/audit';

/** Default and largest page of `GET /api/audit`. */
const DEFAULT_PAGE = 100;
export const MAX_AUDIT_PAGE = 1000;

/** Values of `order`: chain order (the default, what verification reads) or newest first. */
const ORDERS = ['oldest', 'newest'] as const;

function count(raw: string | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  // Up to 10 digits, so the largest value the message names (1,000,000,000) is taken.
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > max) {
    throw new PlatformError('invalid_paging', `${name} must be an integer from 0 to ${max}.`, {
      status: 400,
    });
  }
  return Number(raw);
}

function newestFirst(raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return false;
  if (!(ORDERS as readonly string[]).includes(raw)) {
    throw new PlatformError('invalid_query', 'order must be "oldest" or "newest".', { status: 400 });
  }
  return raw === 'newest';
}

/** An ISO 8601 date (`2026-11-01`, midnight UTC) or instant with its offset (`2026-11-01T08:00:00+01:00`). */
const INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** Whether the calendar date `YYYY-MM-DD` opening `raw` exists (`Date.parse` rolls `02-30` into March). */
function realDate(raw: string): boolean {
  const [year, month, day] = raw.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** `raw` as the ISO instant the log compares `at` with (400 `invalid_query` for another form). */
function instant(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const time = INSTANT.test(raw) && realDate(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new PlatformError(
      'invalid_query',
      `${name} must be an ISO 8601 date (2026-11-01) or time with its offset (2026-11-01T08:00:00Z).`,
      { status: 400 },
    );
  }
  // The database has no year 0 (`0000-01-01` is 22008 there, a 500), and no entry is older than year 1, so
  // an earlier bound selects the same entries as year 1 does.
  return new Date(Math.max(time, EARLIEST_TIME)).toISOString();
}

/**
 * The filters, paging and order of a `GET /api/audit` query string (400 `invalid_paging` or `invalid_query`
 * for a malformed one); an empty value does not filter.
 */
export function readAuditQuery(
  q: Record<string, string>,
): Required<Pick<AuditQuery, 'start' | 'limit' | 'newestFirst'>> & AuditQuery {
  return {
    doctype: q.doctype || undefined,
    record: q.record || undefined,
    user: q.user || undefined,
    ...timeRange(q),
    start: count(q.limit_start, 'limit_start', 0, 1_000_000_000),
    limit: count(q.limit_page_length, 'limit_page_length', DEFAULT_PAGE, MAX_AUDIT_PAGE),
    newestFirst: newestFirst(q.order),
  };
}

/** `from` and `to` of a query string; `from` after `to` is refused (400 `invalid_query`), not answered empty. */
function timeRange(q: Record<string, string>): Pick<AuditQuery, 'from' | 'to'> {
  const from = instant(q.from, 'from');
  const to = instant(q.to, 'to');
  if (from !== undefined && to !== undefined && from > to) {
    throw new PlatformError('invalid_query', 'from must not be after to.', { status: 400 });
  }
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

/**
 * The heads recorded earlier that `GET /api/audit/verify` compares the chain with: each `head` parameter
 * `<seq>:<hash>` (400 `invalid_query` for another form).
 */
export function readRecordedHeads(values: readonly string[] | undefined): RecordedHead[] {
  return (values ?? []).map((text) => {
    const head = parseRecordedHead(text);
    if (!head || head.service !== undefined) {
      throw new PlatformError('invalid_query', 'head must be <seq>:<hash> (the hash as 64 hex digits).', {
        status: 400,
      });
    }
    return head;
  });
}

/** Lets only a signed-in System Manager through (401 `unauthorized`, 403 `forbidden`). */
export function requireSystemManager(c: Context<AppEnv>): void {
  const principal = c.get('principal');
  if (!principal) throw unauthorized();
  if (!rolesOf(principal).includes(SYSTEM_MANAGER)) throw forbidden('manage', 'the audit log');
}

/**
 * The audit log API (System Manager; docs/operators.md#the-audit-log):
 * - `GET /api/audit`: the reveals of personal data, `{ data: AuditEntry[], total }`, filtered by `doctype`,
 *   `record` and `user`, in chain order or with `order=newest` newest first, paged by `limit_start` and
 *   `limit_page_length` (default 100, at most 1,000). Entries carry their hashes, so a copy can be verified
 *   away from the server (`m audit verify --url`).
 * - `GET /api/audit/verify`: the hash chain checked on the server, as `m audit verify` checks it offline:
 *   `{ data: { ok: true, entries, head } }` or `{ data: { ok: false, entries, seq, problem } }`. Each `head`
 *   parameter (`<seq>:<hash>`, repeatable) is a head recorded earlier that the chain must still hold.
 * - `GET /api/audit/export.csv`: every entry the filters of `GET /api/audit` match, in its order, as a CSV
 *   file, read a page at a time from where the last page ended.
 *
 * `from` and `to` narrow every query to the entries of a time range: `from` included, `to` not.
 */
export function auditRoutes({
  audit,
  log,
}: {
  audit: Pick<AuditStore, 'list' | 'page' | 'entries'>;
  log?(line: string): void;
}): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(AUDIT_PATH, async (c) => {
    requireSystemManager(c);
    const page = await audit.list(readAuditQuery(c.req.query()));
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });
  routes.get(`${AUDIT_PATH}/export.csv`, async (c) => {
    requireSystemManager(c);
    const { start: _start, limit: _limit, ...query } = readAuditQuery(c.req.query());
    const { total } = await audit.list({ ...query, limit: 0 });
    let past: number | undefined;
    return auditCsvResponse({
      total,
      pageLength: MAX_AUDIT_PAGE,
      service: false,
      next: async (limit) => {
        const page = await audit.page({ ...query, pastSeq: past, limit });
        past = page.at(-1)?.seq ?? past;
        return page;
      },
      onError: (error) => log?.(`audit export stopped (${(error as Error).name})`),
    });
  });
  routes.get(`${AUDIT_PATH}/verify`, async (c) => {
    requireSystemManager(c);
    const verdict = await verifyChain(audit.entries(), readRecordedHeads(c.req.queries('head')));
    c.header('Cache-Control', 'no-store');
    return c.json({ data: verdict });
  });
  return routes;
}
