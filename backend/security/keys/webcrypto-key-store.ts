import { calculateJwkThumbprint } from 'jose';
import { type EncryptionJwk, JWE_ALG } from '../../../src/protocol';
import { type EncryptionKey, isUsable, type KeyStore, type KeyStoreOptions, newestFirst } from './key-store';

/** RSA modulus size of generated keys (at least 2048 bits, as on the server). */
const MODULUS_BITS = 2048;

async function generateKey(): Promise<Pick<EncryptionKey, 'kid' | 'privateKeys' | 'publicJwk'>> {
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
  return { kid, privateKeys: [pair.privateKey], publicJwk };
}

/**
 * A key store held in memory whose keys are generated with WebCrypto alone: it runs wherever WebCrypto does
 * (the offline mocks in a browser, Node). Rotation is a method call; the retired key keeps decrypting for
 * `graceMs` on the injected clock.
 */
export class WebCryptoKeyStore implements KeyStore {
  readonly #keys: EncryptionKey[] = [];
  readonly #graceMs: number;
  readonly #now: () => number;

  private constructor(options: KeyStoreOptions) {
    this.#graceMs = options.graceMs;
    this.#now = options.now ?? Date.now;
  }

  /** Creates a store holding one freshly generated active key. */
  static async create(options: KeyStoreOptions): Promise<WebCryptoKeyStore> {
    const store = new WebCryptoKeyStore(options);
    await store.rotate();
    return store;
  }

  /** Adds a new active key and retires the previous one (it keeps decrypting during the grace period). */
  async rotate(): Promise<EncryptionKey> {
    const generated = await generateKey();
    const now = this.#now();
    for (const key of this.#keys) key.retiredAt ??= now;
    const key: EncryptionKey = {
      ...generated,
      createdAt: Math.max(now, (this.#keys[0]?.createdAt ?? 0) + 1),
    };
    this.#keys.unshift(key);
    return key;
  }

  async active(): Promise<EncryptionKey> {
    return this.#keys[0]!;
  }

  async usable(): Promise<EncryptionKey[]> {
    const now = this.#now();
    return this.#keys.filter((k) => isUsable(k, this.#graceMs, now)).sort(newestFirst);
  }

  async find(kid: string): Promise<EncryptionKey | undefined> {
    const key = this.#keys.find((k) => k.kid === kid);
    return key && isUsable(key, this.#graceMs, this.#now()) ? key : undefined;
  }
}
