import type { webcrypto } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { type EncryptionJwk, JWE_ALG } from '../../../src/protocol';
import { type GeneratedKey, GeneratedKeyRing } from './generated-key-ring';
import type { KeyStoreOptions } from './key-store';

/** WebCrypto's key pair type (Node's and the browser's are the same API). */
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** RSA modulus size of generated keys (at least 2048 bits, as on the server). */
const MODULUS_BITS = 2048;

async function generateKey(): Promise<GeneratedKey> {
  const pair = (await crypto.subtle.generateKey(
    {
      name: 'RSA-OAEP',
      modulusLength: MODULUS_BITS,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-256',
    },
    true,
    ['encrypt', 'decrypt'],
  )) as CryptoKeyPair;
  // Only the public members leave the key: the private half stays a CryptoKey that is never exported.
  const { n, e } = (await crypto.subtle.exportKey('jwk', pair.publicKey)) as { n: string; e: string };
  const kid = await calculateJwkThumbprint({ kty: 'RSA', n, e }, 'sha256');
  const publicJwk: EncryptionJwk = { kty: 'RSA', use: 'enc', alg: JWE_ALG, kid, n, e };
  return { kid, privateKey: pair.privateKey, publicJwk };
}

/**
 * A key store held in memory whose keys are generated with WebCrypto alone: it runs wherever WebCrypto does
 * (the offline mocks in a browser, Node). Rotation is a method call; the retired key keeps decrypting for
 * `graceMs` on the injected clock.
 */
export class WebCryptoKeyStore extends GeneratedKeyRing {
  private constructor(options: KeyStoreOptions) {
    super(options, generateKey);
  }

  /** Creates a store holding one freshly generated active key. */
  static async create(options: KeyStoreOptions): Promise<WebCryptoKeyStore> {
    const store = new WebCryptoKeyStore(options);
    await store.rotate();
    return store;
  }
}
