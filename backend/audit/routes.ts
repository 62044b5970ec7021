import { Hono } from 'hono';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { unauthorized } from '../middleware/auth';
import { forbidden } from '../permissions/guard';
import { SYSTEM_MANAGER } from '../permissions/model';
import { rolesOf } from '../permissions/routes';
import type { AuditLog } from './audit-log';

/** Path of the audit log API. */
const AUDIT_PATH = '/api/audit';

/** Default and largest page of `GET /api/audit`. */
const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

function count(raw: string | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) > max) {
    throw new PlatformError('invalid_paging', `${name} must be an integer from 0 to ${max}.`, {
      status: 400,
    });
  }
  return Number(raw);
}

/**
 * `GET /api/audit` (System Manager; docs/operators.md#the-audit-log): the reveals of personal data, in chain
 * order, `{ data: AuditEntry[], total }`, filtered by `doctype`, `record` and `user`, paged by
 * `limit_start` and `limit_page_length` (default 100, at most 1,000). Entries carry their hashes, so a copy
 * can be verified away from the server (`m audit verify --url`).
 */
export function auditRoutes({ audit }: { audit: Pick<AuditLog, 'list'> }): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(AUDIT_PATH, async (c) => {
    const principal = c.get('principal');
    if (!principal) throw unauthorized();
    if (!rolesOf(principal).includes(SYSTEM_MANAGER)) throw forbidden('manage', 'the audit log');
    const q = c.req.query();
    const page = await audit.list({
      doctype: q.doctype || undefined,
      record: q.record || undefined,
      user: q.user || undefined,
      start: count(q.limit_start, 'limit_start', 0, 1_000_000_000),
      limit: count(q.limit_page_length, 'limit_page_length', DEFAULT_PAGE, MAX_PAGE),
    });
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });
  return routes;
}
