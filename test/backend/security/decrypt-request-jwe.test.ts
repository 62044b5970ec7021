import { randomBytes } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { decryptRequestJwe, inspectSealedJwe } from '../../../backend/security/jwe/decrypt-request-jwe';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';
import { ServiceKeyStore } from '../../../backend/security/keys/service-key-store';

describe('decryptRequestJwe', () => {
  it('opens exactly what jose compactDecrypt opens (docs/security.md#one-allowlist-for-jwe)', async () => {
    const keys = await MemoryKeyStore.create({ graceMs: 60_000 });
    const key = await keys.active();
    const publicKey = (await importJWK(key.publicJwk, 'RSA-OAEP-256')) as CryptoKey;
    for (let i = 0; i < 12; i++) {
      const plaintext = new Uint8Array(randomBytes(i * 37));
      const token = await new CompactEncrypt(plaintext)
        .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: key.kid, htm: 'PUT', htu: '/a/b' })
        .encrypt(publicKey);
      const ours = await decryptRequestJwe(token, { method: 'put', paths: ['/a/b'] }, keys);
      const theirs = await compactDecrypt(token, key.privateKey, {
        keyManagementAlgorithms: ['RSA-OAEP-256'],
        contentEncryptionAlgorithms: ['A256GCM'],
      });
      expect(Buffer.from(ours.plaintext).equals(Buffer.from(theirs.plaintext))).toBe(true);
      expect(ours.header).toEqual({
        alg: 'RSA-OAEP-256',
        enc: 'A256GCM',
        kid: key.kid,
        htm: 'PUT',
        htu: '/a/b',
      });
    }
  });

  it("opens what jose encrypts to a service's own key (kid svc:<service>:...), as a service does", async () => {
    const keys = new ServiceKeyStore(await MemoryKeyStore.create({ graceMs: 60_000 }), 'crm');
    const key = await keys.active();
    const publicKey = (await importJWK(key.publicJwk, 'RSA-OAEP-256')) as CryptoKey;
    const plaintext = new TextEncoder().encode('{"email":"ada@example.com"}');
    const header = {
      alg: 'RSA-OAEP-256',
      enc: 'A256GCM',
      kid: key.kid,
      htm: 'POST',
      htu: '/api/resource/crm.Customer',
    };
    const token = await new CompactEncrypt(plaintext).setProtectedHeader(header).encrypt(publicKey);
    const target = { method: 'POST', paths: ['/api/resource/crm.Customer'] };
    const ours = await decryptRequestJwe(token, target, keys);
    const theirs = await compactDecrypt(token, key.privateKey, {
      keyManagementAlgorithms: ['RSA-OAEP-256'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    expect(Buffer.from(ours.plaintext).equals(Buffer.from(theirs.plaintext))).toBe(true);
    expect(ours.header.kid).toBe(key.kid);
    // What a gateway makes of it without any key: the service it is for, nothing opened.
    expect(inspectSealedJwe(token, target)).toMatchObject({ token, service: 'crm' });
    // A ring without the service's keys (the gateway's) does not hold the kid.
    await expect(
      decryptRequestJwe(token, target, await MemoryKeyStore.create({ graceMs: 60_000 })),
    ).rejects.toMatchObject({
      code: 'unknown_key',
    });
  });
});
