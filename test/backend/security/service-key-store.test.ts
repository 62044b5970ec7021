/**
 * A MACROSERVICE service's own keys (docs/security.md#encrypted-to-the-owning-service): the ring's keys
 * under kids naming the service, and the manifest check that a service publishes only public keys named
 * after itself.
 */
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../../backend/gateway/manifests/manifest-schema';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';
import { ServiceKeyStore } from '../../../backend/security/keys/service-key-store';
import { serviceOfKid } from '../../../src/protocol';

const GRACE_MS = 60_000;

async function crmKeys() {
  let clock = Date.now();
  const ring = await MemoryKeyStore.create({ graceMs: GRACE_MS, now: () => clock });
  return { ring, keys: new ServiceKeyStore(ring, 'crm'), advance: (ms: number) => (clock += ms) };
}

describe('ServiceKeyStore', () => {
  it("names every key after the service, and finds a key only by the service's kid", async () => {
    const { ring, keys } = await crmKeys();
    const inner = await ring.active();
    const active = await keys.active();
    expect(active.kid).toBe(`svc:crm:${inner.kid}`);
    expect(active.publicJwk.kid).toBe(active.kid);
    expect(serviceOfKid(active.kid)).toBe('crm');
    // The same private key, not a new import of it.
    expect(active.privateKey).toBe(inner.privateKey);
    expect((await keys.find(active.kid))?.kid).toBe(active.kid);
    expect(await keys.find(inner.kid)).toBeUndefined();
    expect(await keys.find(`svc:stock:${inner.kid}`)).toBeUndefined();
  });

  it('publishes public members only, active first, and a rotated-out key until its grace ends', async () => {
    const { ring, keys, advance } = await crmKeys();
    const first = (await keys.active()).kid;
    await ring.rotate();
    const published = await keys.publicKeys();
    expect(published.map((k) => k.kid)).toEqual([(await keys.active()).kid, first]);
    for (const key of published)
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    advance(GRACE_MS + 1);
    expect((await keys.publicKeys()).map((k) => k.kid)).toEqual([(await keys.active()).kid]);
  });
});

describe('a manifest publishing keys', () => {
  const base = {
    service: 'crm',
    rev: 1,
    url: null,
    apiUrl: 'http://127.0.0.1:9000/api',
    metaUrl: 'http://127.0.0.1:9000/api/meta',
    doctypes: ['crm.Customer'],
  };

  it('is believed with public keys named after the service', async () => {
    const { keys } = await crmKeys();
    const encryptionKeys = await keys.publicKeys();
    expect(parseManifest({ ...base, encryptionKeys })?.encryptionKeys).toEqual(encryptionKeys);
  });

  it("is ignored when a key is named after another service: crm cannot take in stock's requests", async () => {
    const stock = new ServiceKeyStore((await crmKeys()).ring, 'stock');
    expect(parseManifest({ ...base, encryptionKeys: await stock.publicKeys() })).toBeNull();
  });

  it('is ignored when a key carries a private member or is not an RSA-OAEP-256 encryption key', async () => {
    const { keys } = await crmKeys();
    const [key] = await keys.publicKeys();
    expect(parseManifest({ ...base, encryptionKeys: [{ ...key, d: 'private' }] })).toBeNull();
    expect(parseManifest({ ...base, encryptionKeys: [{ ...key, alg: 'RSA1_5' }] })).toBeNull();
    expect(parseManifest({ ...base, encryptionKeys: [{ ...key, n: 'AQAB' }] })).toBeNull();
  });
});
