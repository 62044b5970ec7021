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

/**
 * A sign-in as if over a connection from `address` (the server's bindings carry the peer address), to the
 * file's app unless another is given.
 */
const loginFrom = (address: string, usr: string, pwd: string, app: TestApp = t) =>
  app.app.fetch(
    new Request('http://desk.test/api/method/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://desk.test' },
      body: JSON.stringify({ usr, pwd }),
    }),
    { incoming: { socket: { remoteAddress: address } } },
  );

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

  it('keeps a stranger from locking an account out from elsewhere', async () => {
    await t.ctx.security.users.addUser('owner', 'owner-password', ['Stock User']);
    for (let i = 0; i < 5; i++) expect((await loginFrom('10.6.6.6', 'owner', `wrong-${i}`)).status).toBe(401);
    const stranger = await loginFrom('10.6.6.6', 'owner', 'owner-password');
    expect(stranger.status).toBe(429);
    expect(((await stranger.json()) as { error: { code: string } }).error.code).toBe('too_many_attempts');
    expect((await loginFrom('10.1.1.1', 'owner', 'owner-password')).status).toBe(200);
  });
});

describe('the refusal of a locked sign-in', () => {
  it('is held before it is answered, while the owner of the account signs in from elsewhere', async () => {
    const held: (() => void)[] = [];
    const app = await createTestApp({
      loginThrottle: { sleep: () => new Promise<void>((resolve) => held.push(resolve)) },
    });
    try {
      await app.ctx.security.users.addUser('held', 'held-password', ['Stock User']);
      const from = (address: string, pwd: string) => loginFrom(address, 'held', pwd, app);
      for (let i = 0; i < 5; i++) expect((await from('10.6.6.6', `wrong-${i}`)).status).toBe(401);
      expect(held).toHaveLength(0);
      let refusal: Response | undefined;
      const stranger = Promise.resolve(from('10.6.6.6', 'held-password')).then((res) => (refusal = res));
      while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      // The owner's sign-in does not queue behind the refusal being held.
      expect((await from('10.1.1.1', 'held-password')).status).toBe(200);
      expect(refusal).toBeUndefined();
      held[0]!();
      await stranger;
      expect(refusal!.status).toBe(429);
      expect(((await refusal!.json()) as { error: { code: string } }).error.code).toBe('too_many_attempts');
    } finally {
      await app.close();
    }
  });
});
