/**
 * The browser worker's key ring: RSA-OAEP-256 keys generated with WebCrypto, JWEs opened with jose under the
 * one allowlist of docs/security.md#one-allowlist-for-jwe, the request binding checked, and the plaintext
 * parsed by the backend's own `parseDecryptedJson`. Browser-safe: no Node modules.
 */
import { calculateJwkThumbprint, compactDecrypt, decodeProtectedHeader } from 'jose';
import { decryptionFailed, unknownKey } from '../../backend/security/jwe/errors';
import { parseDecryptedJson } from '../../backend/security/jwe/parse-decrypted-json';
import { type EncryptionJwk, JWE_ALG, JWE_ENC } from '../../src/protocol';
import type { MockKeyRing } from './key-ring';

interface HeldKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: EncryptionJwk;
}

async function generate(): Promise<HeldKey> {
  const pair = (await crypto.subtle.generateKey(
    { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['encrypt', 'decrypt'],
  )) as CryptoKeyPair;
  const { n, e } = (await crypto.subtle.exportKey('jwk', pair.publicKey)) as { n: string; e: string };
  const kid = await calculateJwkThumbprint({ kty: 'RSA', n, e }, 'sha256');
  return { kid, privateKey: pair.privateKey, publicJwk: { kty: 'RSA', use: 'enc', alg: JWE_ALG, kid, n, e } };
}

/** Creates a key ring with one fresh key. */
export async function createWebCryptoKeyRing(): Promise<MockKeyRing> {
  let keys: HeldKey[] = [await generate()];
  return {
    activeKid: async () => keys[0]!.kid,
    jwks: async () => ({ keys: keys.map((k) => k.publicJwk) }),
    async decrypt(token, method, path) {
      let header: Record<string, unknown>;
      try {
        header = decodeProtectedHeader(token) as Record<string, unknown>;
      } catch (cause) {
        throw decryptionFailed(cause);
      }
      const key = keys.find((k) => k.kid === header.kid);
      if (!key) throw unknownKey();
      if (header.htm !== method.toUpperCase() || header.htu !== path) throw decryptionFailed();
      try {
        const { plaintext } = await compactDecrypt(token, key.privateKey, {
          keyManagementAlgorithms: [JWE_ALG],
          contentEncryptionAlgorithms: [JWE_ENC],
        });
        return parseDecryptedJson(plaintext);
      } catch (cause) {
        if ((cause as { code?: unknown }).code === 'invalid_json') throw cause;
        throw decryptionFailed(cause);
      }
    },
    async rotate(options = {}) {
      const fresh = await generate();
      keys = options.dropOld ? [fresh] : [fresh, ...keys];
    },
  };
}
