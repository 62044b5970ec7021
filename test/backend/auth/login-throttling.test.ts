/** Login throttling through the real login route (docs/security.md#login-throttling). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await t.ctx.security.users.addUser('victim', 'victim-password', ['Stock User']);
  await t.ctx.security.users.addUser('bystander', 'bystander-password', ['Stock User']);
});
afterAll(() => t?.close());

const login = (usr: string, pwd: string) =>
  t.request('POST', '/api/method/login', { body: { usr, pwd }, anonymous: true });

describe('login throttling', () => {
  it('answers the sixth wrong password with 429 and Retry-After, refuses the right one, lets others in', async () => {
    for (let i = 0; i < 5; i++) expect((await login('victim', `wrong-${i}`)).status).toBe(401);
    const sixth = await login('victim', 'wrong-6');
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await sixth.json()) as { error: { code: string } }).error.code).toBe('too_many_attempts');
    const right = await login('victim', 'victim-password');
    expect(right.status).toBe(429);
    expect((await login('bystander', 'bystander-password')).status).toBe(200);
  });
});
