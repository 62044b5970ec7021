/**
 * A MACROSERVICE gateway's `/api/audit` over three services' audit APIs (each the real audit routes over its
 * own log, asked through the gateway's signed fetch): entries merged by time across services, every page of
 * every size exactly the slice of the whole merged list, filters passed on, the chain verdicts combined, and
 * a service's refusal or absence passed back instead of a partial answer.
 */
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../../backend/audit/chain';
import { gatewayAuditRoutes } from '../../../backend/audit/gateway-routes';
import { MemoryAuditLog } from '../../../backend/audit/memory-audit-log';
import { auditRoutes } from '../../../backend/audit/routes';
import { verifyInternalRequest } from '../../../backend/auth/internal-auth';
import { createStaticDirectory } from '../../../backend/gateway/service-directory';
import type { AppEnv, Principal } from '../../../backend/http/env';
import { handleError } from '../../../backend/http/errors';
import type { ServiceManifest } from '../../../src/protocol';
import type { AuditEntry } from '../../../src/protocol/audit';

const SECRET = 'merged-audit-test-secret-0123456789abcdef';
const ADMIN: Principal = { user: 'Administrator', via: 'session', roles: ['System Manager'] };
const SALES: Principal = { user: 'sales', via: 'session', roles: ['Sales User'] };

function manifest(service: string, doctypes: string[]): ServiceManifest {
  return {
    service,
    url: '',
    apiUrl: `http://${service}.test/api`,
    metaUrl: `http://${service}.test/api/meta`,
    doctypes,
  } as unknown as ServiceManifest;
}

const logs = { crm: new MemoryAuditLog(), stock: new MemoryAuditLog(), support: new MemoryAuditLog() };
const manifests = [
  manifest('crm', ['crm.Customer']),
  manifest('stock', ['stock.Item']),
  manifest('support', ['support.Ticket']),
];
/** Every request the gateway sent a service: its host and path with query. */
const asked: string[] = [];
let down: string | undefined;
/** A service that no longer takes this gateway's principal: it refuses every request as anonymous. */
let untrusting: string | undefined;

/** A service's audit API: the principal taken only from the gateway's signature, as a service takes it. */
function serviceApp(name: string, log: MemoryAuditLog): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(handleError(() => {}));
  app.use(async (c, next) => {
    const url = new URL(c.req.url);
    const principal = verifyInternalRequest(SECRET, {
      method: c.req.method,
      target: url.pathname + url.search,
      body: '',
      headers: c.req.raw.headers,
    });
    if (principal && untrusting !== name) c.set('principal', principal);
    await next();
  });
  app.route('/', auditRoutes({ audit: log }));
  return app;
}
const services = new Map(Object.entries(logs).map(([name, log]) => [`${name}.test`, serviceApp(name, log)]));

const serviceFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  asked.push(`${url.host}${url.pathname}${url.search}`);
  if (url.host === `${down}.test`) throw new TypeError('fetch failed');
  return services.get(url.host)!.fetch(request);
};

function gateway(principal: Principal | undefined) {
  const app = new Hono<AppEnv>();
  app.onError(handleError(() => {}));
  app.use(async (c, next) => {
    if (principal) c.set('principal', principal);
    await next();
  });
  app.route(
    '/',
    gatewayAuditRoutes({
      directory: createStaticDirectory(manifests),
      secret: SECRET,
      timeoutMs: 5_000,
      fetch: serviceFetch,
    }),
  );
  return app;
}

async function get<T>(path: string, principal: Principal | null = ADMIN, status = 200): Promise<T> {
  const res = await gateway(principal ?? undefined).request(path);
  expect(res.status).toBe(status);
  return (await res.json()) as T;
}

/** Every entry of every log, merged as the gateway promises: by time, then service, then position. */
async function allMerged(newestFirst: boolean, keep: (e: AuditEntry) => boolean = () => true) {
  const every: AuditEntry[] = [];
  for (const [service, log] of Object.entries(logs)) {
    for (const entry of (await log.list({ limit: 1000 })).data)
      if (keep(entry)) every.push({ ...entry, service });
  }
  const sign = newestFirst ? -1 : 1;
  return every
    .sort(
      (a, b) =>
        sign * a.at.localeCompare(b.at) || a.service!.localeCompare(b.service!) || sign * (a.seq - b.seq),
    )
    .map((e) => `${e.service}:${e.seq}`);
}

const ids = (page: { data: AuditEntry[] }) => page.data.map((e) => `${e.service}:${e.seq}`);

beforeAll(async () => {
  // Interleaved in time: crm 1, 4, 7..., stock 2, 5, 8..., support 3, 6, 9..., two entries sharing a time.
  for (let i = 0; i < 30; i++) {
    const service = (['crm', 'stock', 'support'] as const)[i % 3]!;
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i === 29 ? 27 : i)).toISOString();
    await logs[service].append([
      {
        at,
        user: i % 2 === 0 ? 'Administrator' : 'ada',
        via: 'session',
        doctype: { crm: 'crm.Customer', stock: 'stock.Item', support: 'support.Ticket' }[service],
        record: `R-${i}`,
        fields: ['email'],
        route: 'get',
        client_address: null,
      },
    ]);
  }
});

describe('GET /api/audit at a MACROSERVICE gateway', () => {
  it("merges the services' entries by time, newest first, each named by its service", async () => {
    const page = await get<{ data: AuditEntry[]; total: number }>(
      '/api/audit?order=newest&limit_page_length=5',
    );
    expect(page.total).toBe(30);
    expect(ids(page)).toEqual((await allMerged(true)).slice(0, 5));
    // The entries i = 27 (crm's 10th) and i = 29 (support's 10th) share a time: by service name.
    expect(ids(page)).toEqual(['stock:10', 'crm:10', 'support:10', 'support:9', 'stock:9']);
    expect(page.data[1]).toMatchObject({ service: 'crm', doctype: 'crm.Customer', record: 'R-27' });
  });

  it('answers every page of every size as the slice of the whole merged list, in both orders', async () => {
    for (const newestFirst of [true, false]) {
      const whole = await allMerged(newestFirst);
      for (const size of [1, 4, 7, 30]) {
        for (let start = 0; start <= 31; start += size) {
          const page = await get<{ data: AuditEntry[]; total: number }>(
            `/api/audit?order=${newestFirst ? 'newest' : 'oldest'}&limit_start=${start}&limit_page_length=${size}`,
          );
          expect(ids(page)).toEqual(whole.slice(start, start + size));
          expect(page.total).toBe(30);
        }
      }
    }
  });

  it('passes the record and user filters to every service, and asks only the owner for a DocType', async () => {
    const byUser = await get<{ data: AuditEntry[]; total: number }>('/api/audit?user=ada&order=newest');
    expect(ids(byUser)).toEqual(await allMerged(true, (e) => e.user === 'ada'));
    expect(byUser.total).toBe(15);

    asked.length = 0;
    const byDocType = await get<{ data: AuditEntry[]; total: number }>('/api/audit?doctype=stock.Item');
    expect(asked.every((path) => path.startsWith('stock.test/api/audit?'))).toBe(true);
    expect(asked).toHaveLength(1);
    expect(byDocType.total).toBe(10);
    expect(byDocType.data.every((e) => e.service === 'stock' && e.doctype === 'stock.Item')).toBe(true);

    asked.length = 0;
    expect(await get('/api/audit?doctype=nobody.Owns')).toEqual({ data: [], total: 0 });
    expect(asked).toEqual([]);
  });

  it('refuses a caller who is not a System Manager before asking any service', async () => {
    asked.length = 0;
    const refused = await get<{ error: { code: string } }>('/api/audit', SALES, 403);
    expect(refused.error.code).toBe('forbidden');
    expect((await get<{ error: { code: string } }>('/api/audit', null, 401)).error.code).toBe('unauthorized');
    expect(asked).toEqual([]);
  });

  it("passes a service's refusal back, and fails with 503 rather than leave a service's entries out", async () => {
    untrusting = 'stock';
    try {
      const refused = await get<{ error: { code: string } }>('/api/audit', ADMIN, 401);
      expect(refused.error.code).toBe('unauthorized');
    } finally {
      untrusting = undefined;
    }
    down = 'support';
    try {
      const failed = await get<{ error: { code: string; message: string } }>('/api/audit', ADMIN, 503);
      expect(failed.error).toEqual({
        code: 'service_unavailable',
        message: 'Service support is unavailable.',
      });
    } finally {
      down = undefined;
    }
  });

  it('refuses malformed paging as a MONOLITH server does, asking no service', async () => {
    asked.length = 0;
    const bad = await get<{ error: { code: string } }>('/api/audit?limit_page_length=5000', ADMIN, 400);
    expect(bad.error.code).toBe('invalid_paging');
    expect(asked).toEqual([]);
  });
});

describe('GET /api/audit/verify at a MACROSERVICE gateway', () => {
  it("combines every service's verdict: intact when all are", async () => {
    const { data } = await get<{ data: Record<string, unknown> }>('/api/audit/verify');
    expect(data).toMatchObject({ ok: true, entries: 30 });
    expect(Object.keys(data.services as object)).toEqual(['crm', 'stock', 'support']);
    expect((data.services as Record<string, { ok: boolean; entries: number }>).stock).toMatchObject({
      ok: true,
      entries: 10,
    });
  });

  it('serves a merged log that `m audit verify --url` checks as one chain per service', async () => {
    const page = await get<{ data: AuditEntry[] }>('/api/audit?limit_page_length=1000');
    expect(await verifyChain(page.data)).toMatchObject({ ok: true, entries: 30 });
    // Without the service names, the same entries read as one broken chain.
    const unnamed = page.data.map(({ service: _service, ...entry }) => entry);
    expect(await verifyChain(unnamed)).toMatchObject({ ok: false, seq: 2 });
  });

  it('names the service whose chain is broken (the last test: it edits a stored entry)', async () => {
    // The memory log lists its own entry objects: editing one edits the log, as an UPDATE would.
    const entry = (await logs.stock.list({ limit: 1000 })).data[3]!;
    entry.user = 'someone else';
    const { data } = await get<{ data: Record<string, unknown> }>('/api/audit/verify');
    expect(data).toMatchObject({
      ok: false,
      entries: 30 - 6,
      service: 'stock',
      seq: 4,
      problem: 'stock: entry 4 was changed after it was written',
    });
    const merged = await get<{ data: AuditEntry[] }>('/api/audit?limit_page_length=1000');
    expect(await verifyChain(merged.data)).toMatchObject({
      ok: false,
      seq: 4,
      problem: 'stock: entry 4 was changed after it was written',
    });
    expect((data.services as Record<string, { ok: boolean }>).crm!.ok).toBe(true);
  });
});
