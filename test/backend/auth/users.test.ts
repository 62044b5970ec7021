/**
 * The users API (docs/permissions.md#users) and revocation: a password change or a disable ends every
 * session, bearer token and API key of the user; a bearer token cannot issue further tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginSession, sessionHeaders } from '../../helpers/auth';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const whoami = (headers: Record<string, string>) => t.request('GET', '/api/method/whoami', { headers });

describe('the users API', () => {
  it('a System Manager adds a user with roles, lists, changes roles; anyone else gets 403', async () => {
    const added = await t.request('POST', '/api/method/platform.users.add', {
      body: { name: 'clerk', password: 'clerk-password', roles: ['Stock User'] },
    });
    expect(added.status).toBe(200);
    const again = await t.request('POST', '/api/method/platform.users.add', {
      body: { name: 'clerk', password: 'clerk-password', roles: [] },
    });
    expect(again.status).toBe(409);
    const listed = await t.request('POST', '/api/method/platform.users.list', { body: {} });
    const users = ((await listed.json()) as { message: Array<{ name: string; roles: string[] }> }).message;
    expect(users).toContainEqual({ name: 'clerk', roles: ['Stock User'], enabled: true });
    expect(users).toContainEqual({ name: 'Administrator', roles: ['System Manager'], enabled: true });

    const roles = await t.request('POST', '/api/method/platform.users.set_roles', {
      body: { name: 'clerk', roles: ['Stock User', 'Support Agent'] },
    });
    expect(roles.status).toBe(200);
    const clerk = await userWithRoles(t.ctx, 'clerk2', ['Stock User']);
    const refused = await t.request('POST', '/api/method/platform.users.list', {
      headers: { authorization: clerk },
      body: {},
    });
    expect(refused.status).toBe(403);
    const missing = await t.request('POST', '/api/method/platform.users.set_roles', {
      body: { name: 'nobody', roles: [] },
    });
    expect(missing.status).toBe(404);
  });

  it("offers the platform's roles and those the rules in force name, a rule stored at run time included", async () => {
    const offered = async () =>
      (
        (await (await t.request('POST', '/api/method/platform.users.roles', { body: {} })).json()) as {
          message: string[];
        }
      ).message;
    expect(await offered()).toEqual(
      expect.arrayContaining(['Metrics Reader', 'Sales Manager', 'Stock User', 'System Manager']),
    );
    expect(await offered()).not.toContain('Night Porter');
    const rules = [{ role: 'Night Porter', read: true }];
    expect((await t.request('PUT', '/api/permissions/stock.Item', { body: { rules } })).status).toBe(200);
    try {
      expect(await offered()).toContain('Night Porter');
    } finally {
      await t.request('DELETE', '/api/permissions/stock.Item');
    }
    const clerk = await userWithRoles(t.ctx, 'roles-clerk', ['Stock User']);
    const refused = await t.request('POST', '/api/method/platform.users.roles', {
      headers: { authorization: clerk },
      body: {},
    });
    expect(refused.status).toBe(403);
  });

  it('a password reset revokes the session, the bearer token and the API key of the user', async () => {
    const key = await userWithRoles(t.ctx, 'ada', ['Stock User'], 'ada-password-1');
    const session = await loginSession(t.app, 'ada', 'ada-password-1');
    const issued = await t.request('POST', '/api/method/platform.auth.issue_token', {
      headers: { authorization: key },
      body: {},
    });
    const token = ((await issued.json()) as { message: { access_token: string } }).message.access_token;
    const bearer = { authorization: `Bearer ${token}` };
    for (const h of [sessionHeaders(session), bearer, { authorization: key }]) {
      expect((await whoami(h)).status).toBe(200);
    }
    const reset = await t.request('POST', '/api/method/platform.users.set_password', {
      body: { name: 'ada', password: 'ada-password-2' },
    });
    expect(reset.status).toBe(200);
    for (const h of [sessionHeaders(session), bearer, { authorization: key }]) {
      expect((await whoami(h)).status).toBe(401);
    }
    await expect(loginSession(t.app, 'ada', 'ada-password-1')).rejects.toThrow();
    await loginSession(t.app, 'ada', 'ada-password-2');
  });

  it("changing one's own password keeps the current session and revokes tokens and keys", async () => {
    const key = await userWithRoles(t.ctx, 'grace', ['Stock User'], 'grace-password-1');
    const session = await loginSession(t.app, 'grace', 'grace-password-1');
    const other = await loginSession(t.app, 'grace', 'grace-password-1');
    const changed = await t.request('POST', '/api/method/platform.auth.change_password', {
      headers: sessionHeaders(session),
      body: { old_password: 'grace-password-1', new_password: 'grace-password-2' },
    });
    expect(changed.status).toBe(200);
    expect((await whoami(sessionHeaders(session))).status).toBe(200);
    expect((await whoami(sessionHeaders(other))).status).toBe(401);
    expect((await whoami({ authorization: key })).status).toBe(401);
  });

  it('a disabled user can neither sign in nor use a key', async () => {
    const key = await userWithRoles(t.ctx, 'linus', ['Stock User'], 'linus-password');
    const disabled = await t.request('POST', '/api/method/platform.users.disable', {
      body: { name: 'linus' },
    });
    expect(disabled.status).toBe(200);
    expect((await whoami({ authorization: key })).status).toBe(401);
    await expect(loginSession(t.app, 'linus', 'linus-password')).rejects.toThrow();
  });

  it('an enabled-again user signs in with their password, and the keys revoked by the disable stay revoked', async () => {
    const key = await userWithRoles(t.ctx, 'ingrid', ['Stock User'], 'ingrid-password');
    await t.request('POST', '/api/method/platform.users.disable', { body: { name: 'ingrid' } });
    const enabled = await t.request('POST', '/api/method/platform.users.enable', {
      body: { name: 'ingrid' },
    });
    expect(enabled.status).toBe(200);
    const session = await loginSession(t.app, 'ingrid', 'ingrid-password');
    expect((await whoami(sessionHeaders(session))).status).toBe(200);
    expect((await whoami({ authorization: key })).status).toBe(401);
    const listed = await t.request('POST', '/api/method/platform.users.list', { body: {} });
    const users = ((await listed.json()) as { message: Array<{ name: string; enabled: boolean }> }).message;
    expect(users.find((u) => u.name === 'ingrid')?.enabled).toBe(true);
    const unknown = await t.request('POST', '/api/method/platform.users.enable', {
      body: { name: 'nobody' },
    });
    expect(unknown.status).toBe(404);
  });

  it('a bearer token acts with its user roles and cannot issue further tokens', async () => {
    const key = await userWithRoles(t.ctx, 'tok', ['Stock User']);
    const issued = await t.request('POST', '/api/method/platform.auth.issue_token', {
      headers: { authorization: key },
      body: {},
    });
    const token = ((await issued.json()) as { message: { access_token: string } }).message.access_token;
    const bearer = { authorization: `Bearer ${token}` };
    expect((await t.request('GET', '/api/resource/stock.Item', { headers: bearer })).status).toBe(200);
    expect((await t.request('GET', '/api/resource/crm.Customer', { headers: bearer })).status).toBe(403);
    const chained = await t.request('POST', '/api/method/platform.auth.issue_token', {
      headers: bearer,
      body: {},
    });
    expect(chained.status).toBe(403);
  });

  it('makes API keys only from a recently signed-in session: a bearer token, a key or an old session gets 403', async () => {
    const key = await userWithRoles(t.ctx, 'keymaker', ['Stock User']);
    const issued = await t.request('POST', '/api/method/platform.auth.issue_token', {
      headers: { authorization: key },
      body: { expires_in: 2 },
    });
    const token = ((await issued.json()) as { message: { access_token: string } }).message.access_token;
    for (const authorization of [`Bearer ${token}`, key]) {
      const refused = await t.request('POST', '/api/method/platform.auth.generate_api_key', {
        headers: { authorization },
        body: {},
      });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    }
    const { rows } = await t.ctx.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM auth_api_keys WHERE user_name = 'keymaker'",
    );
    expect(Number(rows[0]!.n)).toBe(1);
    await t.ctx.security.users.setPassword('keymaker', 'keymaker-password');
    const session = await loginSession(t.app, 'keymaker', 'keymaker-password');
    const made = await t.request('POST', '/api/method/platform.auth.generate_api_key', {
      headers: sessionHeaders(session),
      body: {},
      anonymous: true,
    });
    expect(made.status).toBe(200);
    const { api_key, api_secret } = (
      (await made.json()) as { message: { api_key: string; api_secret: string } }
    ).message;
    expect((await whoami({ authorization: `token ${api_key}:${api_secret}` })).status).toBe(200);

    // The same session 11 minutes after its sign-in: the password must be entered again.
    await t.ctx.db.query(
      "UPDATE auth_sessions SET expires_at = expires_at - 660000 WHERE user_name = 'keymaker'",
    );
    const stale = await t.request('POST', '/api/method/platform.auth.generate_api_key', {
      headers: sessionHeaders(session),
      body: {},
      anonymous: true,
    });
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });

  it('issues a bearer token from a session that expires with the session at the latest', async () => {
    await t.ctx.security.users.addUser('shortlived', 'shortlived-password', ['Stock User']);
    const session = await loginSession(t.app, 'shortlived', 'shortlived-password');
    // The session has about 100 s left.
    await t.ctx.db.query("UPDATE auth_sessions SET expires_at = $1 WHERE user_name = 'shortlived'", [
      Date.now() + 100_000,
    ]);
    const issued = await t.request('POST', '/api/method/platform.auth.issue_token', {
      headers: sessionHeaders(session),
      body: { expires_in: 3600 },
      anonymous: true,
    });
    expect(issued.status).toBe(200);
    const { expires_in } = ((await issued.json()) as { message: { expires_in: number } }).message;
    expect(expires_in).toBeGreaterThan(0);
    expect(expires_in).toBeLessThanOrEqual(100);
    const { rows } = await t.ctx.db.query<{ expires_at: string }>(
      "SELECT expires_at FROM auth_tokens WHERE user_name = 'shortlived'",
    );
    expect(Number(rows[0]!.expires_at)).toBeLessThanOrEqual(Date.now() + 100_000);
  });

  it('refuses a user name that differs from an existing one only in case with 409 user_exists', async () => {
    for (const name of ['administrator', 'ADMINISTRATOR']) {
      const res = await t.request('POST', '/api/method/platform.users.add', {
        body: { name, password: 'another-password', roles: [] },
      });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('user_exists');
    }
    const listed = await t.request('POST', '/api/method/platform.users.list', { body: {} });
    const users = ((await listed.json()) as { message: Array<{ name: string }> }).message;
    expect(users.filter((u) => u.name.toLowerCase() === 'administrator')).toHaveLength(1);
  });
});
