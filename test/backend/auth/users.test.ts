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
});
