/**
 * `GET /api/method/whoami`: who is signed in, with the CSRF token bound to the session so another tab of the
 * same browser (the cookie, no token of its own) can make unsafe requests; 401 when nobody is signed in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginSession, sessionHeaders } from '../../helpers/auth';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/method/whoami', () => {
  it('names the signed-in user and hands back the session’s CSRF token, which then passes the CSRF check', async () => {
    const session = await loginSession(t.app);
    const res = await t.request('GET', '/api/method/whoami', { headers: { cookie: session.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { message } = (await res.json()) as {
      message: { user: string; full_name: string; csrf_token: string };
    };
    expect(message).toMatchObject({ user: 'Administrator', full_name: 'Administrator' });
    expect(message.csrf_token).toBe(session.csrfToken);

    // A tab that only has the cookie uses this token for an unsafe request.
    const created = await t.request('POST', '/api/resource/crm.Customer', {
      body: { customer_name: 'From another tab' },
      headers: sessionHeaders({ cookie: session.cookie, csrfToken: message.csrf_token }),
    });
    expect(created.status).toBe(201);
  });

  it('answers 401 when nobody is signed in', async () => {
    const res = await t.request('GET', '/api/method/whoami', { anonymous: true });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('answers an API key caller with an empty CSRF token (no ambient credential)', async () => {
    const res = await t.request('GET', '/api/method/whoami');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ message: { user: 'Administrator', csrf_token: '' } });
  });

  it('answers 401 after logout', async () => {
    const session = await loginSession(t.app);
    await t.request('POST', '/api/method/logout', { headers: sessionHeaders(session) });
    const res = await t.request('GET', '/api/method/whoami', { headers: { cookie: session.cookie } });
    expect(res.status).toBe(401);
  });
});
