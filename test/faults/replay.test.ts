import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEncoder } from '../../src/benchmarks/target/encoder';
import type { SecurityConfig } from '../../src/protocol';
import { craftJwe, errorOf, sdkJwe, sendJose } from '../backend/security/jwe-support';
import { TEST_ORIGIN } from '../helpers/http';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { 'security.payload_encryption.mode': 'strict' } });
});
afterAll(async () => {
  await t?.close();
});

const PATH = '/api/resource/crm.Lead';
const lead = (n: string) => ({ lead_name: n, source: 'Website' });
const now = () => Math.floor(Date.now() / 1000);

describe('a captured JWE cannot be replayed', () => {
  it('accepts an SDK-made JWE once and refuses the same token again with 400 replayed', async () => {
    const jwe = await sdkJwe(t.ctx, 'POST', PATH, lead('Once'));
    expect((await sendJose(t, 'POST', PATH, jwe)).status).toBe(201);
    const again = await sendJose(t, 'POST', PATH, jwe);
    expect(again.status).toBe(400);
    expect((await errorOf(again)).code).toBe('replayed');
  });

  it.each([
    ['older than the window', { iat: now() - 300 - 60 - 5 }],
    ['from beyond the clock skew in the future', { iat: now() + 120 }],
    ['without iat', { iat: undefined }],
    ['without jti', { jti: undefined }],
  ])('refuses a token %s with 400 replayed', async (_, header) => {
    const jwe = await craftJwe(t.ctx, {
      method: 'POST',
      path: PATH,
      plaintext: JSON.stringify(lead('Old')),
      header,
    });
    const res = await sendJose(t, 'POST', PATH, jwe);
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('replayed');
  });

  it('accepts a token within the clock skew', async () => {
    const jwe = await craftJwe(t.ctx, {
      method: 'POST',
      path: PATH,
      plaintext: JSON.stringify(lead('Skewed')),
      header: { iat: now() + 30 },
    });
    expect((await sendJose(t, 'POST', PATH, jwe)).status).toBe(201);
  });

  it('records a jti only once the token decrypted: a forged token cannot block the real one', async () => {
    const jti = 'AAAAAAAAAAAAAAAAAAAAAA';
    const real = await craftJwe(t.ctx, {
      method: 'POST',
      path: PATH,
      plaintext: JSON.stringify(lead('Real')),
      header: { jti },
    });
    const parts = real.split('.');
    parts[4] = Buffer.alloc(16, 1).toString('base64url'); // a wrong tag with the same header
    const forged = await sendJose(t, 'POST', PATH, parts.join('.'));
    expect((await errorOf(forged)).code).toBe('decryption_failed');
    expect((await sendJose(t, 'POST', PATH, real)).status).toBe(201);
  });

  it('refuses a malformed iat or jti before any crypto', async () => {
    for (const header of [{ iat: 'yesterday' }, { jti: 'short' }, { iat: -1 }]) {
      const jwe = await craftJwe(t.ctx, { method: 'POST', path: PATH, plaintext: '{}', header });
      expect((await errorOf(await sendJose(t, 'POST', PATH, jwe))).code).toBe('decryption_failed');
    }
  });

  it('the load-test harness encodes like the SDK: iat now and a fresh random jti in every protected header', async () => {
    const fetchImpl = ((input: RequestInfo | URL, init?: RequestInit) =>
      t.app.fetch(new Request(input, init))) as typeof fetch;
    const config = (await (
      await fetchImpl(`${TEST_ORIGIN}/api/v1/security/config`)
    ).json()) as SecurityConfig;
    const encoder = await createEncoder(config, TEST_ORIGIN, fetchImpl);
    const bodies = await Promise.all(
      [1, 2, 3].map((i) => encoder.encode(lead(`Harness ${i}`), `${TEST_ORIGIN}${PATH}`, 'POST')),
    );
    const headers = bodies.map((b) => decodeProtectedHeader(b.body));
    for (const header of headers) {
      expect(header.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Math.abs((header.iat as number) - now())).toBeLessThanOrEqual(60);
    }
    expect(new Set(headers.map((h) => h.jti)).size).toBe(3);
    expect((await sendJose(t, 'POST', PATH, bodies[0]!.body)).status).toBe(201);
    expect((await errorOf(await sendJose(t, 'POST', PATH, bodies[0]!.body))).code).toBe('replayed');
  });
});
