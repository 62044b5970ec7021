import { randomBytes } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { decryptRequestJwe } from '../../../backend/security/jwe/decrypt-request-jwe';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';

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
      const theirs = await compactDecrypt(token, key.privateKeys[0]!, {
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
});
