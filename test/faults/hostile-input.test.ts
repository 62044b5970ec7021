import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../backend/db/database';
import { openDatabase } from '../../backend/db/open-database';
import { createStaticDirectory } from '../../backend/gateway/service-directory';
import { type RunningServer, startServer } from '../../backend/server';
import { craftJwe, sendJose } from '../backend/security/jwe-support';
import { request } from '../helpers/http';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
let server: RunningServer;
/**
 * The one database every app of this file uses (as several gateways share one): opening an embedded database
 * is most of what creating an app costs, and the apps with other settings only need users and sessions.
 */
let database: Database;
beforeAll(async () => {
  database = await openDatabase({ memory: true });
  // Metadata mode (the default): plain JSON where no field is flagged, and a JWE is taken on any route.
  t = await createTestApp({
    config: { 'server.trusted_proxies': ['127.0.0.1'], 'security.payload_encryption.mode': 'metadata' },
    database,
  });
  server = await startServer(t.app, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server?.close();
  await t?.close();
  await database?.close();
});

async function errorCode(res: Response): Promise<string | undefined> {
  const text = await res.text();
  return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
}

/** Sends raw bytes on a socket and returns the whole answer (the server closes the connection). */
function rawRequest(bytes: Buffer, port = server.port): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(bytes);
  });
}

describe('bad input answers its 4xx in the one JSON error shape', () => {
  it.each([
    ['a NUL in a field', { lead_name: 'a\u0000b', source: 'Website' }],
    ['a lone high surrogate in a field', { lead_name: 'a\ud800b', source: 'Website' }],
    ['a lone low surrogate in a key', { lead_name: 'ok', '\udc00': 1 }],
  ])('refuses %s with 400 invalid_characters', async (_, body) => {
    const res = await request(t.app, 'POST', '/api/resource/crm.Lead', { body });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('invalid_characters');
  });

  it.each([
    ['a NUL in a filter value', `[["lead_name","=","\\u0000"]]`],
    ['a lone surrogate in a filter value', `[["lead_name","=","\\ud800"]]`],
  ])(
    'refuses %s with 400 invalid_filters (docs/http-api.md#errors: the filters JSON is invalid)',
    async (_, filters) => {
      const res = await request(
        t.app,
        'GET',
        `/api/resource/crm.Lead?filters=${encodeURIComponent(filters)}`,
      );
      expect(res.status).toBe(400);
      expect(await errorCode(res)).toBe('invalid_filters');
    },
  );

  it('refuses a NUL in a path segment or query value with 400 invalid_characters', async () => {
    for (const path of ['/api/resource/crm.Lead/a%00b', '/api/resource/crm.Lead?lead_name=a%00']) {
      const res = await request(t.app, 'GET', path);
      expect(res.status, path).toBe(400);
      expect(await errorCode(res)).toBe('invalid_characters');
    }
  });

  it('refuses percent-encoding that is not UTF-8 with 400 invalid_url', async () => {
    for (const path of ['/api/resource/crm.Lead?lead_name=%ED%A0%80', '/api/resource/crm.Lead/%FF']) {
      const res = await request(t.app, 'GET', path);
      expect(res.status, path).toBe(400);
      expect(await errorCode(res)).toBe('invalid_url');
    }
  });

  it.each([
    [
      'a raw non-ASCII byte in the URL',
      Buffer.from('GET /api/resource/crm.Lead/caf\xe9 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'latin1'),
      'invalid_url',
    ],
    [
      'a backslash in the URL',
      Buffer.from('GET /desk\\..\\package.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'latin1'),
      'invalid_url',
    ],
    ['a malformed request line', Buffer.from('GET /a b c\r\n\r\n', 'latin1'), 'bad_request'],
    [
      'a header block larger than 16 KiB',
      Buffer.from(`GET /desk/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 'latin1'),
      'headers_too_large',
    ],
  ])('answers %s with 4xx %s in the JSON error shape', async (_, bytes, code) => {
    const res = await rawRequest(bytes);
    expect(res.status).toBe(code === 'headers_too_large' ? 431 : 400);
    expect(JSON.parse(res.body)).toEqual({ error: { code, message: expect.any(String) } });
  });

  it.each([
    ['__proto__', '{"lead_name":"P","source":"Website","__proto__":{"polluted":true}}'],
    ['an escaped __proto__', '{"lead_name":"P","source":"Website","\\u005f_proto__":{"polluted":true}}'],
    ['constructor.prototype', '{"lead_name":"P","source":"Website","constructor":{"prototype":{"x":1}}}'],
  ])('refuses %s with 400 invalid_json the same in plain JSON and encrypted', async (_, body) => {
    const plain = await request(t.app, 'POST', '/api/resource/crm.Lead', {
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(plain.status).toBe(400);
    expect(await errorCode(plain)).toBe('invalid_json');
    const jwe = await craftJwe(t.ctx, { method: 'POST', path: '/api/resource/crm.Lead', plaintext: body });
    const encrypted = await sendJose(t, 'POST', '/api/resource/crm.Lead', jwe);
    expect(encrypted.status).toBe(400);
    expect(await errorCode(encrypted)).toBe('invalid_json');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** A request with any Host header over a real connection (fetch cannot set Host). */
function withHost(
  port: number,
  method: string,
  path: string,
  host: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const body = options.body === undefined ? '' : JSON.stringify(options.body);
  const headers = {
    Host: host,
    Connection: 'close',
    ...(body
      ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }
      : {}),
    ...options.headers,
  };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return rawRequest(Buffer.from(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body}`), port);
}

describe('Host check (DNS rebinding)', () => {
  it('answers 421 invalid_host to sign-in, writes and the Desk under a foreign Host, even with a matching Origin', async () => {
    const evil = `evil.example:${server.port}`;
    const origin = { origin: `http://${evil}` };
    const login = await withHost(server.port, 'POST', '/api/method/login', evil, {
      body: { usr: 'Administrator', pwd: 'admin' },
      headers: origin,
    });
    expect(login.status).toBe(421);
    expect(JSON.parse(login.body).error.code).toBe('invalid_host');
    // Even with a real session and its CSRF token (the rebound page shares the cookie jar of the name).
    const session = await fetch(`${server.url}/api/method/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ usr: 'Administrator', pwd: 'admin' }),
    });
    const { csrf_token } = (await session.json()) as { csrf_token: string };
    const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
    const write = await withHost(server.port, 'POST', '/api/resource/crm.Lead', evil, {
      body: { lead_name: 'Rebound write', source: 'Website' },
      headers: { ...origin, cookie, 'x-csrf-token': csrf_token },
    });
    expect(write.status).toBe(421);
    expect(JSON.parse(write.body).error.code).toBe('invalid_host');
    const stored = await request(t.app, 'GET', '/api/resource/crm.Lead?limit=100');
    expect(await stored.text()).not.toContain('Rebound write');
    const desk = await withHost(server.port, 'GET', '/desk/', evil);
    expect(desk.status).toBe(421);
    expect(desk.body).not.toContain('evil.example');
  });

  it('checks the Host header of a real connection and allows the loopback names and the public_url host', async () => {
    for (const [host, status] of [
      ['evil.example', 421],
      [`evil.example:${server.port}`, 421],
      [`127.0.0.1:${server.port}`, 200],
      [`localhost:${server.port}`, 200],
      ['desk.test', 200],
    ] as const) {
      const res = await withHost(server.port, 'GET', '/api/gateway/remotes', host);
      expect(res.status, host).toBe(status);
    }
  });

  it('takes the Desk gatewayUrl from configuration, never from a foreign Host', async () => {
    const res = await withHost(server.port, 'GET', '/desk/', 'desk.test');
    expect(res.status).toBe(200);
    expect(res.body).toContain('"gatewayUrl":"http://desk.test"');
    const direct = await request(t.app, 'GET', 'http://evil.example/desk/', { anonymous: true });
    const html = await direct.text();
    expect(html).toContain('"gatewayUrl":"http://desk.test"');
    expect(html).not.toContain('evil');
  });

  it('accepts a host named in server.allowed_hosts', async () => {
    const other = await createTestApp({
      config: { 'server.allowed_hosts': ['desk.internal:8443'] },
      database,
    });
    const otherServer = await startServer(other.app, { host: '127.0.0.1', port: 0 });
    try {
      const get = (host: string) => withHost(otherServer.port, 'GET', '/api/gateway/remotes', host);
      expect((await get('desk.internal:8443')).status).toBe(200);
      expect((await get('desk.internal:9999')).status).toBe(421);
    } finally {
      await otherServer.close();
      await other.close();
    }
  });
});

describe('Secure session cookie', () => {
  async function loginCookie(app: TestApp, headers: Record<string, string> = {}, base = '') {
    const res = await request(app.app, 'POST', `${base}/api/method/login`, {
      body: { usr: 'Administrator', pwd: 'admin' },
      headers,
      anonymous: true,
    });
    expect(res.status).toBe(200);
    return res.headers.get('set-cookie') ?? '';
  }

  it('sets Secure when server.public_url is https', async () => {
    const https = await createTestApp({
      config: { 'server.public_url': 'https://desk.example.com' },
      database,
    });
    try {
      const cookie = await loginCookie(
        https,
        { origin: 'https://desk.example.com' },
        'https://desk.example.com',
      );
      expect(cookie).toMatch(/;\s*Secure/i);
    } finally {
      await https.close();
    }
  });

  it('omits Secure on plain http and believes X-Forwarded-Proto only from a trusted proxy', async () => {
    expect(await loginCookie(t)).not.toMatch(/Secure/i);
    const login = (forwarded: string) =>
      fetch(`${server.url}/api/method/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': forwarded },
        body: JSON.stringify({ usr: 'Administrator', pwd: 'admin' }),
      });
    // 127.0.0.1 is a trusted proxy in this app.
    expect((await login('https')).headers.get('set-cookie')).toMatch(/;\s*Secure/i);
    expect((await login('http')).headers.get('set-cookie')).not.toMatch(/Secure/i);
  });
});

describe('Desk page headers', () => {
  it('sends a CSP with frame-ancestors none, the remotes’ origins and the inline script hashes, and X-Frame-Options', async () => {
    const withRemote = await createTestApp({
      database,
      directory: createStaticDirectory([
        {
          service: 'stock',
          rev: 1,
          url: 'https://remotes.example.com:9443/desk/assets/stock/remoteEntry.js',
          apiUrl: 'https://api.example.com/api',
          metaUrl: 'https://api.example.com/api/meta',
          doctypes: ['stock.Item'],
        },
      ]),
    });
    try {
      const res = await request(withRemote.app, 'GET', '/desk/', { anonymous: true });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src')) ?? '';
      expect(scriptSrc).toContain("'self'");
      expect(scriptSrc).toContain('https://remotes.example.com:9443');
      expect(scriptSrc).not.toContain('unsafe-inline');
      const html = await res.text();
      const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
      expect(inline.length).toBeGreaterThan(0);
      for (const body of inline) {
        expect(scriptSrc).toContain(`'sha256-${createHash('sha256').update(body).digest('base64')}'`);
      }
      expect(csp).toContain('connect-src');
      expect(csp.split(';').find((d) => d.includes('connect-src'))).toContain('https://api.example.com');
    } finally {
      await withRemote.close();
    }
  });
});
