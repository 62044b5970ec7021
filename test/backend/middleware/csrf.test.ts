import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyAuthorization, type CookieSession, loginSession, sessionHeaders } from '../../helpers/auth';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { errorOf, recordCount } from '../security/jwe-support';

const LEADS = '/api/resource/crm.Lead';

let t: TestApp;
let session: CookieSession;
let other: CookieSession;
beforeAll(async () => {
  t = await createTestApp({
    config: { 'security.csrf.trusted_origins': ['https://admin.partner.example'] },
  });
  session = await loginSession(t.app);
  other = await loginSession(t.app);
});
afterAll(async () => {
  await t?.close();
});

async function expectForbidden(headers: Record<string, string>) {
  const before = await recordCount(t.ctx, 'crm.Lead');
  const res = await t.request('POST', LEADS, { body: { lead_name: 'CSRF' }, headers });
  expect(res.status).toBe(403);
  expect((await errorOf(res)).code).toBe('csrf_failed');
  expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before);
}

describe('CSRFMiddleware', () => {
  it('lets a same-origin cookie request with its session’s token through', async () => {
    const res = await t.request('POST', LEADS, {
      body: { lead_name: 'Same origin' },
      headers: { ...sessionHeaders(session), 'sec-fetch-site': 'same-origin' },
    });
    expect(res.status).toBeLessThan(300);
  });

  it('refuses Sec-Fetch-Site: cross-site', async () => {
    const { origin: _, ...headers } = sessionHeaders(session);
    await expectForbidden({ ...headers, 'sec-fetch-site': 'cross-site' });
  });

  it.each(['https://evil.example', 'null', 'http://desk.test.evil.example', 'https://desk.test'])(
    'refuses Origin %s',
    async (origin) => {
      await expectForbidden(sessionHeaders(session, origin));
    },
  );

  it('accepts a configured trusted origin', async () => {
    const res = await t.request('POST', LEADS, {
      body: { lead_name: 'Trusted' },
      headers: { ...sessionHeaders(session, 'https://admin.partner.example'), 'sec-fetch-site': 'same-site' },
    });
    expect(res.status).toBeLessThan(300);
  });

  it('refuses a missing token and a token of another session', async () => {
    const { 'x-csrf-token': _, ...noToken } = sessionHeaders(session);
    await expectForbidden(noToken);
    await expectForbidden({ ...sessionHeaders(session), 'x-csrf-token': other.csrfToken });
  });

  it('does not apply to API-key and bearer requests (no ambient credential)', async () => {
    const apiKey = await apiKeyAuthorization(t.ctx);
    const byKey = await t.request('POST', LEADS, {
      body: { lead_name: 'API key' },
      headers: { authorization: apiKey, origin: 'https://evil.example' },
    });
    expect(byKey.status).toBeLessThan(300);
    const issued = await t.request('POST', '/api/method/platform.auth.issue_token', { body: {} });
    const { access_token } = ((await issued.json()) as { message: { access_token: string } }).message;
    const byBearer = await t.request('POST', LEADS, {
      body: { lead_name: 'Bearer' },
      headers: { authorization: `Bearer ${access_token}`, cookie: session.cookie },
    });
    expect(byBearer.status).toBeLessThan(300);
  });

  it('does not require the token on safe methods', async () => {
    const res = await t.request('GET', LEADS, { headers: { cookie: session.cookie } });
    expect(res.status).toBe(200);
  });

  it('refuses a cross-site login (login CSRF) without creating a session', async () => {
    const { rows: before } = await t.ctx.db.query('SELECT 1 FROM auth_sessions');
    const res = await t.request('POST', '/api/method/login', {
      body: { usr: 'Administrator', pwd: 'admin' },
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      anonymous: true,
    });
    expect(res.status).toBe(403);
    const { rows: after } = await t.ctx.db.query('SELECT 1 FROM auth_sessions');
    expect(after).toHaveLength(before.length);
  });
});
