/**
 * A stored password hash made with older scrypt parameters is replaced by one with the current parameters at
 * the user's next successful sign-in, through the real app and its database: only after a right password,
 * only once, and never over a hash that changed in between.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DbAuthStore } from '../../../backend/auth/db-auth-store';
import { needsRehash, ScryptPasswordHasher } from '../../../backend/auth/passwords';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A hash as new hashes were made before: N = 2^15, r = 8, p = 1. */
function previousHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 64, { N: 32_768, r: 8, p: 1, maxmem: 64 << 20 });
  return ['scrypt', 32_768, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}

async function storedHash(name: string): Promise<string> {
  const { rows } = await t.ctx.db.query<{ password_hash: string }>(
    'SELECT password_hash FROM auth_users WHERE name = $1',
    [name],
  );
  return rows[0]!.password_hash;
}

const signIn = (usr: string, pwd: string) => t.request('POST', '/api/method/login', { body: { usr, pwd } });

describe('rehashing at sign-in', () => {
  it('tells current hashes from older ones', async () => {
    expect(needsRehash(await new ScryptPasswordHasher().hash('x'))).toBe(false);
    expect(needsRehash(previousHash('x'))).toBe(true);
    expect(needsRehash('pbkdf2-sha256$600000$abc$def')).toBe(true);
  });

  it('replaces an older hash after a right password, once, and keeps it after a wrong one', async () => {
    await t.ctx.security.auth.createUser('old.hash', 'first password');
    const old = previousHash('first password');
    await t.ctx.db.query('UPDATE auth_users SET password_hash = $2 WHERE name = $1', ['old.hash', old]);
    const hashes = vi.spyOn(ScryptPasswordHasher.prototype, 'hash');

    expect((await signIn('old.hash', 'wrong password')).status).toBe(401);
    expect(await storedHash('old.hash')).toBe(old);
    expect(hashes).not.toHaveBeenCalled();

    expect((await signIn('old.hash', 'first password')).status).toBe(200);
    const rehashed = await storedHash('old.hash');
    expect(rehashed).toMatch(/^scrypt\$16384\$8\$2\$/);
    expect(hashes).toHaveBeenCalledTimes(1);

    // The new hash checks the same password, and is not made again.
    expect((await signIn('old.hash', 'first password')).status).toBe(200);
    expect(await storedHash('old.hash')).toBe(rehashed);
    expect(hashes).toHaveBeenCalledTimes(1);
  });

  it('does not replace a hash that changed between the check and the rehash', async () => {
    const store = new DbAuthStore(t.ctx.db);
    await t.ctx.security.auth.createUser('raced', 'a password');
    const before = await storedHash('raced');
    const changed = previousHash('changed meanwhile');
    await t.ctx.db.query('UPDATE auth_users SET password_hash = $2 WHERE name = $1', ['raced', changed]);
    expect(await store.replacePasswordHash('raced', before, 'scrypt$rehash')).toBe(false);
    expect(await storedHash('raced')).toBe(changed);
    expect(await store.replacePasswordHash('raced', changed, 'scrypt$rehash')).toBe(true);
    expect(await storedHash('raced')).toBe('scrypt$rehash');
  });
});
