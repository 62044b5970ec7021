import { createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Jwks, SecurityConfig } from '../../../src/protocol';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { errorOf, memoryKeys } from './jwe-support';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    config: {
      'security.payload_encryption.mode': 'selective',
      'security.payload_encryption.routes': ['/api/method/crm.*'],
    },
  });
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/v1/security/config', () => {
  it('reports the mode, the JWKS path, the merged selective routes and the active kid', async () => {
    const res = await t.request('GET', '/api/v1/security/config', { anonymous: true });
    expect(res.status).toBe(200);
    const config = (await res.json()) as SecurityConfig;
    expect(config).toEqual({
      mode: 'selective',
      jwks_uri: '/api/v1/security/jwks',
      routes: [
        '/api/method/login',
        '/api/method/platform.auth.change_password',
        '/api/method/platform.auth.generate_api_key',
        '/api/method/platform.users.add',
        '/api/method/platform.users.set_password',
        '/api/method/crm.*',
      ],
      kid: (await t.ctx.security.keys.active()).kid,
    });
  });

  it('ignores query parameters and headers that ask for another mode', async () => {
    const res = await t.request('GET', '/api/v1/security/config?mode=disabled', {
      headers: { 'x-encryption-mode': 'disabled' },
    });
    expect(((await res.json()) as SecurityConfig).mode).toBe('selective');
  });

  it('answers 405 with the JSON error body to other methods', async () => {
    const res = await t.request('POST', '/api/v1/security/config', { body: {} });
    expect(res.status).toBe(405);
    expect((await errorOf(res)).code).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('GET /api/v1/security/jwks', () => {
  it('publishes public members only, with use enc, alg RSA-OAEP-256 and a 2048-bit modulus', async () => {
    const res = await t.request('GET', '/api/v1/security/jwks', { anonymous: true });
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as Jwks;
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(key).toMatchObject({ kty: 'RSA', use: 'enc', alg: 'RSA-OAEP-256' });
      const details = createPublicKey({ key: key as never, format: 'jwk' }).asymmetricKeyDetails;
      expect(details?.modulusLength).toBeGreaterThanOrEqual(2048);
    }
  });

  it('lists the new and the retired key after a rotation, each with its own kid, active first', async () => {
    const before = (await t.ctx.security.keys.active()).kid;
    const rotated = await memoryKeys(t.ctx).rotate();
    const { keys } = (await (await t.request('GET', '/api/v1/security/jwks')).json()) as Jwks;
    const kids = keys.map((k) => k.kid);
    expect(kids[0]).toBe(rotated.kid);
    expect(kids).toContain(before);
    expect(new Set(kids).size).toBe(kids.length);
    const config = (await (await t.request('GET', '/api/v1/security/config')).json()) as SecurityConfig;
    expect(config.kid).toBe(rotated.kid);
  });

  it('is cacheable for less time than the key grace period', async () => {
    const res = await t.request('GET', '/api/v1/security/jwks');
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);
    const pe = t.ctx.config.security.payload_encryption;
    expect(maxAge).toBe(pe.jwks_max_age_seconds);
    expect(maxAge).toBeLessThan(pe.key_grace_seconds);
  });

  it('answers POST with 405', async () => {
    const res = await t.request('POST', '/api/v1/security/jwks', { body: { keys: [] } });
    expect(res.status).toBe(405);
    expect((await errorOf(res)).code).toBe('method_not_allowed');
  });
});
