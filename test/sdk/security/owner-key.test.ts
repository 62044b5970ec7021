/**
 * The SDK encrypts a body to the key of the service that owns it when the JWKS lists one
 * (docs/security.md#encrypted-to-the-owning-service), else to the gateway's active key, and keeps the keys
 * it imported across JWKS refetches.
 */
import { generateKeyPairSync } from 'node:crypto';
import { compactDecrypt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import type { EncryptionJwk, FlaggedSchema } from '../../../src/protocol';
import { SecurityClient } from '../../../src/sdk/security';

const ORIGIN = 'http://desk.test';
const piiSchema: FlaggedSchema = { fields: [{}, { pii: true }] };

function keyPair(kid: string) {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { n, e } = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  const jwk: EncryptionJwk = { kty: 'RSA', use: 'enc', alg: 'RSA-OAEP-256', kid, n, e };
  return { jwk, privateKey };
}

const gatewayKey = keyPair('gatewayThumbprint');
const crmKey = keyPair('svc:crm:crmThumbprint');
const crmNext = keyPair('svc:crm:crmNextThumbprint');

/** A gateway answering the security config and a JWKS that `keys()` gives at each fetch. */
function gateway(keys: () => EncryptionJwk[]) {
  const fetched: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    const path = new URL(String(input)).pathname;
    fetched.push(path);
    const body =
      path === '/api/v1/security/config'
        ? { mode: 'metadata', jwks_uri: '/api/v1/security/jwks', routes: [], kid: gatewayKey.jwk.kid }
        : { keys: keys() };
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  };
  return { fetch, fetched };
}

describe('the key a body is encrypted to', () => {
  it("is the owner's own key when the JWKS lists one, which only the owner's private key opens", async () => {
    const { fetch } = gateway(() => [gatewayKey.jwk, crmKey.jwk]);
    const client = new SecurityClient({ baseUrl: ORIGIN, fetch });
    const url = `${ORIGIN}/api/resource/crm.Customer`;
    const payload = await client.encryptPayload({ email: 'ada@example.com' }, url, 'POST', piiSchema, 'crm');
    expect(payload.contentType).toBe('application/jose');
    expect(decodeProtectedHeader(payload.body).kid).toBe(crmKey.jwk.kid);
    const opened = await compactDecrypt(payload.body, crmKey.privateKey);
    expect(JSON.parse(new TextDecoder().decode(opened.plaintext))).toEqual({ email: 'ada@example.com' });
    await expect(compactDecrypt(payload.body, gatewayKey.privateKey)).rejects.toThrow();
  });

  it("is the gateway's active key where the owner publishes none (MONOLITH) or no owner is given", async () => {
    const { fetch } = gateway(() => [gatewayKey.jwk, crmKey.jwk]);
    const client = new SecurityClient({ baseUrl: ORIGIN, fetch });
    const url = `${ORIGIN}/api/resource/stock.Item`;
    const forStock = await client.encryptPayload({}, url, 'POST', piiSchema, 'stock');
    expect(decodeProtectedHeader(forStock.body).kid).toBe(gatewayKey.jwk.kid);
    const unowned = await client.encryptPayload({}, url, 'POST', piiSchema);
    expect(decodeProtectedHeader(unowned.body).kid).toBe(gatewayKey.jwk.kid);
    // A service name is matched whole: `cr` is not `crm`.
    const forCr = await client.encryptPayload({}, url, 'POST', piiSchema, 'cr');
    expect(decodeProtectedHeader(forCr.body).kid).toBe(gatewayKey.jwk.kid);
  });

  it("takes the owner's first key in the JWKS (its active one) and follows a rotation after a refresh", async () => {
    let published = [gatewayKey.jwk, crmKey.jwk];
    const { fetch } = gateway(() => published);
    const client = new SecurityClient({ baseUrl: ORIGIN, fetch });
    const url = `${ORIGIN}/api/resource/crm.Customer`;
    expect((await client.keyFor('crm')).kid).toBe(crmKey.jwk.kid);
    published = [gatewayKey.jwk, crmNext.jwk, crmKey.jwk];
    await client.refreshKeys();
    const payload = await client.encryptPayload({}, url, 'POST', piiSchema, 'crm');
    expect(decodeProtectedHeader(payload.body).kid).toBe(crmNext.jwk.kid);
  });

  it('reuses the keys it imported when the JWKS is fetched again', async () => {
    let now = 0;
    const { fetch, fetched } = gateway(() => [gatewayKey.jwk, crmKey.jwk]);
    const client = new SecurityClient({ baseUrl: ORIGIN, fetch, keysMaxAgeMs: 1_000, now: () => now });
    const first = await client.keyFor('crm');
    now = 5_000; // past the max-age: the JWKS is fetched again
    const second = await client.keyFor('crm');
    expect(fetched.filter((p) => p === '/api/v1/security/jwks')).toHaveLength(2);
    expect(second.key).toBe(first.key);
    expect((await client.getKey()).key).toBe((await client.getKey(gatewayKey.jwk.kid)).key);
  });
});
