import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadHeaders } from '../../../backend/attachments/routes';
import { signInternalRequest, trustGateway } from '../../../backend/auth/internal-auth';
import { forwardRoutes } from '../../../backend/gateway/forward';
import { createStaticDirectory } from '../../../backend/gateway/service-directory';
import type { AppEnv } from '../../../backend/http/env';
import { handleError, notFound } from '../../../backend/http/errors';
import type { ServiceManifest } from '../../../src/protocol';
import { freePort } from '../../helpers/nats-server';

const SECRET = 'test-secret-of-at-least-32-characters!!';

/** Released by the test: the fake service's export sends its rows. */
let releaseExport = () => {};
const exportRows = new Promise<void>((resolve) => {
  releaseExport = resolve;
});

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  principal: unknown;
  body: string;
}

/** A service process stand-in: the trust middleware, then handlers that echo what they received. */
function fakeService(seen: Seen[]) {
  const app = new Hono<AppEnv>();
  app.onError(handleError(() => {}));
  app.notFound(notFound);
  app.use('*', trustGateway(SECRET));
  const record = async (c: import('hono').Context<AppEnv>) => {
    seen.push({
      method: c.req.method,
      path: new URL(c.req.url).pathname + new URL(c.req.url).search,
      headers: Object.fromEntries(c.req.raw.headers),
      principal: c.get('principal') ?? null,
      body: await c.req.text(),
    });
    c.header('Set-Cookie', 'sid=upstream');
    c.header('X-Total-Count', '1');
    return c.json({ data: { ok: true } }, c.req.method === 'POST' ? 201 : 200);
  };
  app.get('/api/method/slow.wait', async (c) => {
    await new Promise((r) => setTimeout(r, 2_000));
    return c.json({ message: 'late' });
  });
  // A record's attachments: the upload's bytes as received, and a download with its headers.
  app.post('/api/resource/:doctype/:name/attachments', async (c) => {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    seen.push({
      method: c.req.method,
      path: new URL(c.req.url).pathname + new URL(c.req.url).search,
      headers: Object.fromEntries(c.req.raw.headers),
      principal: c.get('principal') ?? null,
      body: Buffer.from(bytes).toString('hex'),
    });
    return c.json({ data: { id: 'a1' } }, 201);
  });
  app.get('/api/resource/:doctype/:name/attachments/:id', (c) =>
    c.body(new Uint8Array([0, 255, 1]), 200, downloadHeaders('report.pdf', 'text/html', 3)),
  );
  // An export: its heading at once, its rows only once the test lets them go.
  app.get('/api/resource/:doctype/export.csv', () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode('ID,Name\r\n'));
        await exportRows;
        controller.enqueue(encoder.encode('CUST-00001,Ada\r\n'));
        controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/csv; charset=utf-8' } });
  });
  app.all('/api/resource/*', record);
  app.all('/api/method/*', record);
  app.all('/api/import/*', record);
  app.get('/api/meta/:service', record);
  return app;
}

function manifest(service: string, base: string, doctypes: string[]): ServiceManifest {
  return {
    service,
    rev: 1,
    url: `${base}/desk/assets/${service}/remoteEntry.js`,
    apiUrl: `${base}/api`,
    metaUrl: `${base}/api/meta/${service}`,
    doctypes,
  };
}

let server: ServerType;
let gateway: Hono<AppEnv>;
let serviceBase: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: fakeService(seen).fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  serviceBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const deadBase = `http://127.0.0.1:${await freePort()}`;
  const directory = createStaticDirectory([
    manifest('crm', serviceBase, ['crm.Customer']),
    manifest('slow', serviceBase, []),
    manifest('dead', deadBase, ['dead.Thing']),
  ]);
  gateway = new Hono<AppEnv>();
  gateway.onError(handleError(() => {}));
  gateway.notFound(notFound);
  // Stands in for AuthMiddleware: the gateway's chain has established a principal.
  gateway.use('*', async (c, next) => {
    if (c.req.header('authorization')) c.set('principal', { user: 'Administrator', via: 'bearer' });
    await next();
  });
  gateway.route('/', forwardRoutes({ directory, secret: SECRET, timeoutMs: 500, log: () => {} }));
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  gateway.fetch(
    new Request(`http://gateway.test${path}`, {
      method,
      headers: {
        authorization: 'Bearer t',
        cookie: 'sid=secret',
        ...headers,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    }),
  );

describe('forwardRoutes', () => {
  it('forwards a data request to the service named by X-Platform-Service with the principal signed', async () => {
    seen.length = 0;
    const res = await send(
      'POST',
      '/api/resource/crm.Customer?x=1',
      { 'X-Platform-Service': 'crm' },
      { customer_name: 'Ada' },
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ data: { ok: true } });
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('x-total-count')).toBe('1');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      path: '/api/resource/crm.Customer?x=1',
      principal: { user: 'Administrator', via: 'bearer' },
      body: '{"customer_name":"Ada"}',
    });
    expect(seen[0]!.headers.cookie).toBeUndefined();
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it('routes by the DocType owner when the header is missing, and RPC by the method prefix', async () => {
    seen.length = 0;
    expect((await send('GET', '/api/resource/crm.Customer/C-1')).status).toBe(200);
    expect((await send('POST', '/api/method/crm.get_stats', {}, { a: 1 })).status).toBe(201);
    expect(seen.map((s) => s.path)).toEqual(['/api/resource/crm.Customer/C-1', '/api/method/crm.get_stats']);
  });

  it('forwards an import to the owner of its DocType with its Prefer header', async () => {
    seen.length = 0;
    const res = await send(
      'POST',
      '/api/import/crm.Customer',
      { prefer: 'respond-async' },
      { csv: 'Customer Name\r\nAda\r\n' },
    );
    expect(res.status).toBe(201);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', path: '/api/import/crm.Customer' });
    expect(seen[0]!.headers.prefer).toBe('respond-async');
    expect(JSON.parse(seen[0]!.body)).toEqual({ csv: 'Customer Name\r\nAda\r\n' });
  });

  it("forwards a record's attachment upload as its bytes and media type, and its download with its headers", async () => {
    seen.length = 0;
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x80]);
    const res = await gateway.fetch(
      new Request('http://gateway.test/api/resource/crm.Customer/C-1/attachments?filename=a.png', {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'image/png' },
        body: bytes,
      }),
    );
    // The service checked the signature over the bytes as sent (a text re-encoding would not match).
    expect(res.status).toBe(201);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      path: '/api/resource/crm.Customer/C-1/attachments?filename=a.png',
      principal: { user: 'Administrator', via: 'bearer' },
      body: '89504e47fffe0080',
    });
    expect(seen[0]!.headers['content-type']).toBe('image/png');

    const download = await send('GET', '/api/resource/crm.Customer/C-1/attachments/a1');
    expect(download.status).toBe(200);
    expect(Object.fromEntries(download.headers)).toMatchObject({
      'content-type': 'application/octet-stream',
      'content-disposition': "attachment; filename*=UTF-8''report.pdf",
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
      'content-security-policy': 'sandbox',
    });
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(new Uint8Array([0, 255, 1]));
  });

  it('passes an export on as a stream: its first bytes arrive while the service is still writing it', async () => {
    const res = await send('GET', '/api/resource/crm.Customer/export.csv?filters=%5B%5D');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    // The service has not finished: a buffering gateway would not have answered at all yet.
    expect(decoder.decode((await reader.read()).value)).toBe('ID,Name\r\n');
    releaseExport();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += decoder.decode(chunk.value, { stream: true });
    expect(rest).toBe('CUST-00001,Ada\r\n');
  });

  it('forwards /api/meta/<service> to the service metaUrl', async () => {
    seen.length = 0;
    expect((await send('GET', '/api/meta/crm')).status).toBe(200);
    expect(seen[0]?.path).toBe('/api/meta/crm');
  });

  it('answers 404 unknown_service for an unregistered service without contacting anything', async () => {
    seen.length = 0;
    const named = await send('GET', '/api/resource/crm.Customer', { 'X-Platform-Service': 'nope' });
    const unowned = await send('GET', '/api/resource/hr.Employee');
    const meta = await send('GET', '/api/meta/nope');
    for (const res of [named, unowned, meta]) {
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe('unknown_service');
    }
    expect(seen).toHaveLength(0);
  });

  it('answers 503 service_unavailable when the service does not accept connections', async () => {
    const res = await send('GET', '/api/resource/dead.Thing');
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe('service_unavailable');
  });

  it('answers 504 upstream_timeout when the service is too slow', async () => {
    const res = await send('GET', '/api/method/slow.wait', { 'X-Platform-Service': 'slow' });
    expect(res.status).toBe(504);
    expect((await res.json()).error.code).toBe('upstream_timeout');
  });
});

describe('forwardRoutes with another secret than the service', () => {
  it('answers 502 bad_gateway, not the service 401, and logs the mismatch', async () => {
    const logs: string[] = [];
    const directory = createStaticDirectory([manifest('crm', serviceBase, ['crm.Customer'])]);
    const wrong = new Hono<AppEnv>();
    wrong.onError(handleError(() => {}));
    wrong.route(
      '/',
      forwardRoutes({ directory, secret: 'x'.repeat(40), timeoutMs: 500, log: (l) => logs.push(l) }),
    );
    const res = await wrong.fetch(new Request('http://gateway.test/api/resource/crm.Customer'));
    expect(res.status).toBe(502);
    expect((await res.json()).error.code).toBe('bad_gateway');
    expect(logs.some((l) => l.includes('PLATFORM_INTERNAL_SECRET'))).toBe(true);
  });
});

describe('trustGateway', () => {
  it('refuses unsigned and forged data requests sent to the service directly', async () => {
    seen.length = 0;
    const direct = await fetch(`${serviceBase}/api/resource/crm.Customer`);
    expect(direct.status).toBe(401);
    expect((await direct.json()).error.code).toBe('untrusted_caller');
    const forged = signInternalRequest('another-secret-another-secret-another', {
      method: 'GET',
      target: '/api/resource/crm.Customer',
      body: '',
      principal: { user: 'Administrator', via: 'session' },
    });
    const res = await fetch(`${serviceBase}/api/resource/crm.Customer`, { headers: forged });
    expect(res.status).toBe(401);
    const tampered = signInternalRequest(SECRET, {
      method: 'GET',
      target: '/api/resource/crm.Lead',
      body: '',
    });
    expect((await fetch(`${serviceBase}/api/resource/crm.Customer`, { headers: tampered })).status).toBe(401);
    expect(seen).toHaveLength(0);
  });

  it('refuses a signed data request without a principal and accepts one with it', async () => {
    const anonymous = signInternalRequest(SECRET, {
      method: 'GET',
      target: '/api/resource/crm.Customer',
      body: '',
    });
    const res = await fetch(`${serviceBase}/api/resource/crm.Customer`, { headers: anonymous });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('unauthorized');
    const signed = signInternalRequest(SECRET, {
      method: 'GET',
      target: '/api/resource/crm.Customer',
      body: '',
      principal: { user: 'Administrator', via: 'session' },
    });
    expect((await fetch(`${serviceBase}/api/resource/crm.Customer`, { headers: signed })).status).toBe(200);
  });

  it('covers the idempotency lookup key with the signature: a swapped key is refused', async () => {
    seen.length = 0;
    const signed = signInternalRequest(SECRET, {
      method: 'POST',
      target: '/api/resource/crm.Customer',
      body: '{}',
      principal: { user: 'Administrator', via: 'session' },
      idempotency: 'lookup-of-the-caller',
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${serviceBase}/api/resource/crm.Customer`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{}',
      });
    expect((await post({ ...signed, 'x-platform-idempotency': 'lookup-of-someone-else' })).status).toBe(401);
    const { 'x-platform-idempotency': _dropped, ...withoutKey } = signed;
    expect((await post(withoutKey)).status).toBe(401);
    expect((await post(signed)).status).toBe(201);
    expect(seen).toHaveLength(1);
  });
});
