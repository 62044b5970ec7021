import { type Context, Hono } from 'hono';
import type { ServiceDirectory } from '../gateway/service-directory';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { auditCsvResponse } from './audit-csv';
import type { ChainVerdict } from './chain';
import { MergedLog, mergedPage } from './merged-log';
import { AUDIT_PATH, MAX_AUDIT_PAGE, readAuditQuery, requireSystemManager } from './routes';
import { type ServiceLogAccess, ServiceRefusal, serviceVerdict } from './service-logs';

/** What {@link gatewayAuditRoutes} reads. */
export interface GatewayAuditOptions {
  directory: Pick<ServiceDirectory, 'list' | 'get' | 'ownerOf'>;
  /** The secret shared with services (`PLATFORM_INTERNAL_SECRET`). */
  secret: string;
  /** Deadline of one service's answer (`desk.upstream_timeout_ms`). */
  timeoutMs: number;
  fetch?: typeof fetch;
  log?(line: string): void;
}

/** The gateway's verdict: every service's own, and whether all of them hold. */
export type MergedVerdict = (
  | { ok: true; entries: number }
  | { ok: false; entries: number; seq: number; problem: string; service: string }
) & { services: Record<string, ChainVerdict> };

/** A service's refusal, passed back as the service answered it (the one JSON error shape). */
function refusal(err: ServiceRefusal): Response {
  return new Response(err.body, {
    status: err.status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}

/**
 * The audit log API of a MACROSERVICE gateway (docs/operators.md#the-audit-log), for the Desk's Audit page
 * and a record's reveals: each service keeps the log of the data it holds, so the gateway asks the services
 * with the caller's principal, signed (the gateway and each service check that the caller is a System
 * Manager; a service's refusal is passed back as it is) and merges what they answer. It never decrypts anything: entries hold no
 * personal data.
 * - `GET /api/audit`: the query of a MONOLITH server; `doctype` asks only its owner, otherwise the services'
 *   entries are merged by time, paged across services. Each entry names its `service`.
 * - `GET /api/audit/verify`: every service's chain checked by the service; `ok` when all hold, otherwise
 *   the first broken one's `service`, `seq` and `problem`; `services` holds each service's verdict. A
 *   `head` parameter is refused (400 `invalid_query`): `m audit verify --url` compares recorded heads.
 */
export function gatewayAuditRoutes(options: GatewayAuditOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const access = (c: Context<AppEnv>): ServiceLogAccess => {
    // Refused here already (the services check the same rights): no service asked for nothing.
    requireSystemManager(c);
    const principal = c.get('principal')!;
    return { secret: options.secret, timeoutMs: options.timeoutMs, principal, fetch: options.fetch };
  };

  // A DocType's reveals are in its owner's log only; a DocType nobody owns has none.
  const ownersOf = (doctype: string | undefined) =>
    doctype
      ? [options.directory.get(options.directory.ownerOf(doctype) ?? '')].filter((m) => m !== undefined)
      : options.directory.list();

  routes.get(AUDIT_PATH, async (c) => {
    const caller = access(c);
    const query = readAuditQuery(c.req.query());
    try {
      const page = await mergedPage(ownersOf(query.doctype), query, caller);
      c.header('Cache-Control', 'no-store');
      return c.json(page);
    } catch (err) {
      if (err instanceof ServiceRefusal) return refusal(err);
      throw err;
    }
  });

  routes.get(`${AUDIT_PATH}/export.csv`, async (c) => {
    const caller = access(c);
    const query = readAuditQuery(c.req.query());
    const merged = new MergedLog(ownersOf(query.doctype), query, MAX_AUDIT_PAGE, caller);
    try {
      const total = await merged.open();
      return await auditCsvResponse({
        total,
        pageLength: MAX_AUDIT_PAGE,
        service: true,
        next: (count) => merged.take(count),
        onError: (error) => options.log?.(`audit export stopped (${(error as Error).name})`),
      });
    } catch (err) {
      if (err instanceof ServiceRefusal) return refusal(err);
      throw err;
    }
  });

  routes.get(`${AUDIT_PATH}/verify`, async (c) => {
    const caller = access(c);
    // Not compared here: left unread, a recorded head would pass without being checked.
    if (c.req.queries('head')) {
      throw new PlatformError(
        'invalid_query',
        'The gateway does not compare recorded heads: run m audit verify --url with --head <service>/<seq>:<hash>.',
        { status: 400 },
      );
    }
    const manifests = options.directory.list();
    let verdicts: ChainVerdict[];
    try {
      verdicts = await Promise.all(manifests.map((m) => serviceVerdict(m, caller)));
    } catch (err) {
      if (err instanceof ServiceRefusal) return refusal(err);
      throw err;
    }
    const services = Object.fromEntries(manifests.map((m, i) => [m.service, verdicts[i]!]));
    const entries = verdicts.reduce((sum, v) => sum + v.entries, 0);
    const broken = manifests.findIndex((_, i) => !verdicts[i]!.ok);
    const verdict = verdicts[broken];
    const data: MergedVerdict =
      verdict && !verdict.ok
        ? {
            ok: false,
            entries,
            seq: verdict.seq,
            problem: `${manifests[broken]!.service}: ${verdict.problem}`,
            service: manifests[broken]!.service,
            services,
          }
        : { ok: true, entries, services };
    c.header('Cache-Control', 'no-store');
    return c.json({ data });
  });
  return routes;
}
