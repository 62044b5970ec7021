import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';
import { apiKeyAuthorization, loginSession, sessionHeaders } from '../../helpers/auth';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { recordCount, sdkJwe, sendJose } from '../security/jwe-support';

const LEADS = '/api/resource/crm.Lead';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    config: { 'security.payload_encryption.mode': 'strict', 'security.session.ttl_seconds': 60 },
    keys: await MemoryKeyStore.create({ graceMs: 86_400_000 }),
  });
});
afterAll(async () => {
  await t?.close();
});

const whoami = (headers: Record<string, string>) =>
  t.request('GET', '/api/method/platform.auth.whoami', { headers, anonymous: true });

describe('AuthMiddleware and the auth routes', () => {
  it('logs in with usr/pwd: an HttpOnly SameSite=Lax cookie and a CSRF token', async () => {
    const jwe = await sdkJwe(t.ctx, 'POST', '/api/method/login', { usr: 'Administrator', pwd: 'admin' });
    const res = await sendJose(t, 'POST', '/api/method/login', jwe);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { message: string; csrf_token: string };
    expect(body.message).toBe('Logged In');
    expect(body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^sid=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    const me = await whoami({ cookie: cookie.split(';')[0]! });
    expect(await me.json()).toEqual({ message: { user: 'Administrator', via: 'session' } });
  });

  it('authenticates API keys and bearer tokens', async () => {
    const apiKey = await apiKeyAuthorization(t.ctx);
    expect(await (await whoami({ authorization: apiKey })).json()).toEqual({
      message: { user: 'Administrator', via: 'api_key' },
    });
    const issued = await sendJose(
      t,
      'POST',
      '/api/method/platform.auth.issue_token',
      await sdkJwe(t.ctx, 'POST', '/api/method/platform.auth.issue_token', { expires_in: 600 }),
      { authorization: apiKey },
    );
    const { message } = (await issued.json()) as { message: { access_token: string; expires_in: number } };
    expect(message.expires_in).toBe(600);
    expect(await (await whoami({ authorization: `Bearer ${message.access_token}` })).json()).toEqual({
      message: { user: 'Administrator', via: 'bearer' },
    });
  });

  it('stores API secrets, session ids and tokens only as hashes', async () => {
    const apiKey = await apiKeyAuthorization(t.ctx);
    const secret = apiKey.split(':')[1]!;
    const { rows } = await t.ctx.db.query<{ secret_hash: string }>('SELECT secret_hash FROM auth_api_keys');
    expect(rows.some((r) => r.secret_hash === secret)).toBe(false);
    const { rows: users } = await t.ctx.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM auth_users',
    );
    for (const u of users) expect(u.password_hash).toMatch(/^scrypt\$/);
  });

  it('answers every failure with the same 401 body', async () => {
    const session = await loginSession(t.app).catch(() => undefined);
    expect(session).toBeUndefined(); // strict mode: a plaintext login is refused (415)
    const wrongPassword = await sendJose(
      t,
      'POST',
      '/api/method/login',
      await sdkJwe(t.ctx, 'POST', '/api/method/login', { usr: 'Administrator', pwd: 'wrong' }),
      {},
    );
    const unknownUser = await sendJose(
      t,
      'POST',
      '/api/method/login',
      await sdkJwe(t.ctx, 'POST', '/api/method/login', { usr: 'nobody', pwd: 'admin' }),
      {},
    );
    const responses = [
      wrongPassword,
      unknownUser,
      await whoami({ authorization: 'token nope:nope' }),
      await whoami({ authorization: 'Basic QWxhZGRpbjpvcGVu' }),
      await whoami({ authorization: 'Bearer' }),
      await whoami({ authorization: 'Bearer not-a-token' }),
      await whoami({ cookie: 'sid=forged' }),
      await whoami({}),
    ];
    const bodies = await Promise.all(responses.map((r) => r.text()));
    for (const res of responses) expect(res.status).toBe(401);
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!).error.code).toBe('unauthorized');
  });

  it('refuses an expired session with the same 401', async () => {
    const login = await sendJose(
      t,
      'POST',
      '/api/method/login',
      await sdkJwe(t.ctx, 'POST', '/api/method/login', { usr: 'Administrator', pwd: 'admin' }),
    );
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    await t.ctx.db.query('UPDATE auth_sessions SET expires_at = $1', [Date.now() - 1]);
    const res = await whoami({ cookie });
    expect(res.status).toBe(401);
    expect((await res.json()) as unknown).toEqual({
      error: {
        code: 'unauthorized',
        message: 'Authentication is required, or the credentials are not valid.',
      },
    });
  });

  it('answers 401 to a valid JWE without a credential, writing nothing', async () => {
    const before = await recordCount(t.ctx, 'crm.Lead');
    const { rows: keysBefore } = await t.ctx.db.query('SELECT 1 FROM platform_idempotency');
    const jwe = await sdkJwe(t.ctx, 'POST', LEADS, { lead_name: 'Anonymous' });
    const res = await t.request('POST', LEADS, {
      body: jwe,
      headers: { 'content-type': 'application/jose', 'idempotency-key': 'anon-1' },
      anonymous: true,
    });
    expect(res.status).toBe(401);
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before);
    const { rows: keysAfter } = await t.ctx.db.query('SELECT 1 FROM platform_idempotency');
    expect(keysAfter).toHaveLength(keysBefore.length);
  });

  it('keeps the Desk, discovery and security endpoints public', async () => {
    for (const path of ['/api/v1/security/config', '/api/v1/security/jwks', '/api/gateway/remotes']) {
      expect((await t.request('GET', path, { anonymous: true })).status).toBe(200);
    }
    expect((await t.request('GET', '/desk/', { anonymous: true })).status).toBe(200);
    expect((await t.request('GET', '/api/meta/crm', { anonymous: true })).status).toBe(401);
    expect((await t.request('GET', '/api/%72esource/crm.Lead', { anonymous: true })).status).toBe(401);
  });

  it('logs out: the session stops working', async () => {
    const login = await sendJose(
      t,
      'POST',
      '/api/method/login',
      await sdkJwe(t.ctx, 'POST', '/api/method/login', { usr: 'Administrator', pwd: 'admin' }),
    );
    const { csrf_token } = (await login.json()) as { csrf_token: string };
    const session = { cookie: login.headers.get('set-cookie')!.split(';')[0]!, csrfToken: csrf_token };
    const out = await t.request('POST', '/api/method/logout', { headers: sessionHeaders(session) });
    expect(out.status).toBe(200);
    expect((await whoami({ cookie: session.cookie })).status).toBe(401);
  });
});
