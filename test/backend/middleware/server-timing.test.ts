/**
 * Server-Timing: a System Manager who sends `X-Platform-Timing: 1` gets each stage of the middleware chain
 * (host check, decryption, auth, ...), the data API's permission checks (`perm`) and record store calls
 * (`db`), the rest of the handler and the total; a caller without that role, a caller who did not ask, and
 * an anonymous caller get no such header.
 */
import { request as httpRequest } from 'node:http';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from '../../../backend/http/env';
import { handleError, PlatformError } from '../../../backend/http/errors';
import { timeStage, withServerTiming } from '../../../backend/middleware/server-timing';
import { type ChainStep, foldSteps } from '../../../backend/middleware/step';
import { startServer } from '../../../backend/server';
import { apiKeyAuthorization } from '../../helpers/auth';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let stockUser: string;

beforeAll(async () => {
  t = await createTestApp();
  stockUser = await userWithRoles(t.ctx, 'stock-timing', ['Stock User']);
});

afterAll(async () => {
  await t?.close();
});

const ASK = { 'X-Platform-Timing': '1' };

/** The metric names of a Server-Timing value and their durations. */
function metrics(value: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (value ?? '').split(',')) {
    const [name, ...params] = part.trim().split(';');
    const dur = params.find((p) => p.startsWith('dur='));
    if (name) out[name] = Number(dur?.slice(4));
  }
  return out;
}

describe('Server-Timing', () => {
  it('gives an asking System Manager every stage of the chain, permissions, database, the handler and the total', async () => {
    const res = await t.request('GET', '/api/resource/stock.Item', { headers: ASK });
    expect(res.status).toBe(200);
    const stages = metrics(res.headers.get('server-timing'));
    expect(Object.keys(stages)).toEqual([
      'host',
      'target',
      'ratelimit',
      'body',
      'decrypt',
      'csrf',
      'idempotency',
      'auth',
      'perm',
      'db',
      'app',
      'total',
    ]);
    for (const ms of Object.values(stages)) expect(ms).toBeGreaterThanOrEqual(0);
    const value = res.headers.get('server-timing');
    expect(value).toContain('desc="Host check"');
    expect(value).toMatch(/perm;dur=\d+\.\d{3};desc="Permissions"/);
    expect(value).toMatch(/db;dur=\d+\.\d{3};desc="Database"/);
  });

  it('names the permission checks and the record store calls of every record operation', async () => {
    const created = await t.request('POST', '/api/resource/stock.Item', {
      headers: ASK,
      body: { item_code: 'TIMED-LIFE', item_name: 'Timed life' },
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { name: string } };
    const path = `/api/resource/stock.Item/${encodeURIComponent(data.name)}`;
    const read = await t.request('GET', path, { headers: ASK });
    expect(read.status).toBe(200);
    const updated = await t.request('PUT', path, { headers: ASK, body: { item_name: 'Timed again' } });
    expect(updated.status).toBe(200);
    const deleted = await t.request('DELETE', path, { headers: ASK });
    expect(deleted.status).toBe(200);
    for (const res of [created, read, updated, deleted]) {
      expect(Object.keys(metrics(res.headers.get('server-timing')))).toEqual(
        expect.arrayContaining(['auth', 'perm', 'db', 'app', 'total']),
      );
    }
    // The record is really gone: the timed delete did what an untimed one does.
    expect((await t.request('GET', path)).status).toBe(404);
  });

  it('names the permission check of an RPC call but not its handler as database', async () => {
    const res = await t.request('POST', '/api/method/crm.api.customer_count', { headers: ASK, body: {} });
    expect(res.status).toBe(200);
    const stages = Object.keys(metrics(res.headers.get('server-timing')));
    expect(stages).toEqual(expect.arrayContaining(['perm', 'app', 'total']));
    expect(stages).not.toContain('db');
  });

  it('times a write through decryption and idempotency as well', async () => {
    const res = await t.request('POST', '/api/resource/stock.Item', {
      headers: ASK,
      body: { item_code: 'TIMED-1', item_name: 'Timed' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(metrics(res.headers.get('server-timing')))).toEqual(
      expect.arrayContaining(['decrypt', 'idempotency', 'auth', 'app', 'total']),
    );
  });

  it('reads the asking header from node:http on a real server, and times only the request that asks', async () => {
    const server = await startServer(t.app, { host: '127.0.0.1', port: 0 });
    const authorization = await apiKeyAuthorization(t.ctx);
    // node:http, not fetch: the Host must be the public URL's for the host check.
    const timingOf = (headers: Record<string, string>) =>
      new Promise<string | undefined>((resolve, reject) => {
        const req = httpRequest(`${server.url}/api/resource/stock.Item`, {
          headers: { host: 'desk.test', authorization, ...headers },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(res.headers['server-timing'] as string | undefined)
              : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect(Object.keys(metrics((await timingOf(ASK)) ?? null))).toEqual(
        expect.arrayContaining(['host', 'auth', 'db', 'app', 'total']),
      );
      expect(await timingOf({})).toBeUndefined();
      expect(await timingOf({ 'X-Platform-Timing': '0' })).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('sends nothing to a System Manager who did not ask', async () => {
    const res = await t.request('GET', '/api/resource/stock.Item');
    expect(res.status).toBe(200);
    expect(res.headers.get('server-timing')).toBeNull();
    expect(((await res.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it('sends nothing to an asking caller without the System Manager role', async () => {
    const res = await t.request('GET', '/api/resource/stock.Item', {
      headers: { ...ASK, authorization: stockUser },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('server-timing')).toBeNull();
  });

  it('sends nothing to an asking anonymous caller, refused or not', async () => {
    const refused = await t.request('GET', '/api/resource/stock.Item', { headers: ASK, anonymous: true });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('server-timing')).toBeNull();
    const badLogin = await t.request('POST', '/api/method/login', {
      headers: ASK,
      anonymous: true,
      body: { usr: 'Administrator', pwd: 'wrong' },
    });
    expect(badLogin.status).toBe(401);
    expect(badLogin.headers.get('server-timing')).toBeNull();
  });
});

describe('Server-Timing enabled by the operator (server.server_timing)', () => {
  let always: TestApp;
  let stockUserAlways: string;

  beforeAll(async () => {
    always = await createTestApp({ config: { 'server.server_timing': true } });
    stockUserAlways = await userWithRoles(always.ctx, 'stock-timing', ['Stock User']);
  });

  afterAll(async () => {
    await always?.close();
  });

  it('times every System Manager request without being asked, and still no one else’s', async () => {
    const manager = await always.request('GET', '/api/resource/stock.Item');
    expect(Object.keys(metrics(manager.headers.get('server-timing')))).toContain('auth');
    const other = await always.request('GET', '/api/resource/stock.Item', {
      headers: { authorization: stockUserAlways },
    });
    expect(other.status).toBe(200);
    expect(other.headers.get('server-timing')).toBeNull();
  });
});

describe('Server-Timing on a response with immutable headers', () => {
  it('adds the header to a copy of a response passed on as it came (a forward to a service)', async () => {
    const app = new Hono<AppEnv>();
    const onError = handleError(() => {});
    const signIn: ChainStep = {
      name: 'auth',
      enter(c) {
        c.set('principal', { user: 'Administrator', via: 'api_key', roles: ['System Manager'] });
        return undefined;
      },
    };
    app.use('*', foldSteps(withServerTiming([signIn]), onError));
    // Response.redirect gives a response whose headers cannot change, like one read from fetch.
    app.get('/passed-on', () => Response.redirect('http://desk.test/elsewhere', 302));
    const res = await app.request('/passed-on', { headers: ASK });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://desk.test/elsewhere');
    expect(Object.keys(metrics(res.headers.get('server-timing')))).toEqual(['auth', 'app', 'total']);
  });
});

describe('timeStage', () => {
  const signIn: ChainStep = {
    name: 'auth',
    enter(c) {
      c.set('principal', { user: 'Administrator', via: 'api_key', roles: ['System Manager'] });
      return undefined;
    },
  };

  /** An app whose handler runs a synchronous check, refused when `?refuse=1`, timed as `check`. */
  function checkingApp(): Hono<AppEnv> {
    const app = new Hono<AppEnv>();
    app.onError(handleError(() => {}));
    app.use(
      '*',
      foldSteps(
        withServerTiming([signIn]),
        handleError(() => {}),
      ),
    );
    app.get('/checked', (c) => {
      const answer = timeStage(c, 'check', 'Check', () => {
        if (c.req.query('refuse') === '1') throw new PlatformError('forbidden', 'No.', { status: 403 });
        return 42;
      });
      // A synchronous check stays synchronous, timed or not.
      return c.json({ answer, synchronous: typeof answer === 'number' });
    });
    return app;
  }

  it('passes on a synchronous result, timed or not', async () => {
    const app = checkingApp();
    const timed = await app.request('/checked', { headers: ASK });
    expect(await timed.json()).toEqual({ answer: 42, synchronous: true });
    expect(Object.keys(metrics(timed.headers.get('server-timing')))).toEqual([
      'auth',
      'check',
      'app',
      'total',
    ]);
    const untimed = await app.request('/checked');
    expect(await untimed.json()).toEqual({ answer: 42, synchronous: true });
    expect(untimed.headers.get('server-timing')).toBeNull();
  });

  it('still lists a stage whose work threw, and passes the error on', async () => {
    const res = await checkingApp().request('/checked?refuse=1', { headers: ASK });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect(Object.keys(metrics(res.headers.get('server-timing')))).toContain('check');
  });
});
