import type { EncryptionJwk } from '../../../src/protocol';

/**
 * One payload-encryption key as the server holds it. The private half is held as non-extractable WebCrypto
 * keys so decryption runs on Node's thread pool and the key material cannot be exported by accident.
 */
export interface EncryptionKey {
  kid: string;
  /**
   * The same RSA-OAEP (SHA-256) private key imported several times (usage `decrypt` only), one per
   * thread-pool thread: OpenSSL serialises concurrent operations on one key object (RSA blinding), so
   * giving each concurrent operation its own copy is what lets decryption use every core. Use them through
   * {@link withPrivateKey}.
   */
  privateKeys: readonly CryptoKey[];
  /** Public members only (`kty`, `use`, `alg`, `kid`, `n`, `e`): what the JWKS publishes. */
  publicJwk: EncryptionJwk;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds when a newer key replaced it; absent for the active key. */
  retiredAt?: number;
}

/**
 * The server-owned map of encryption keys (docs/security.md#one-allowlist-for-jwe,
 * docs/security.md#key-rotation-without-failures). Keys are only ever looked up by `kid` in this map: headers
 * such as `jku`, `x5u` or `jwk` are never followed.
 */
export interface KeyStore {
  /** The key new payloads should be encrypted to (named by `/api/v1/security/config`). */
  active(): Promise<EncryptionKey>;
  /** The active key and every retired key still inside its grace period, newest first. */
  usable(): Promise<EncryptionKey[]>;
  /** A usable key by `kid`, or undefined for an unknown or expired one. */
  find(kid: string): Promise<EncryptionKey | undefined>;
}

/** Key-store timing options shared by the implementations. */
export interface KeyStoreOptions {
  /** How long a retired key keeps decrypting (`key_grace_seconds`), in milliseconds. */
  graceMs: number;
  /** Injectable clock for tests. */
  now?: () => number;
}

/** True while a key decrypts: the active key, or a retired one inside the grace period. */
export function isUsable(key: Pick<EncryptionKey, 'retiredAt'>, graceMs: number, now: number): boolean {
  return key.retiredAt === undefined || now < key.retiredAt + graceMs;
}

/** Newest first, so the JWKS lists the active key first. */
export function newestFirst(a: EncryptionKey, b: EncryptionKey): number {
  return b.createdAt - a.createdAt;
}

interface CopyPool {
  free: CryptoKey[];
  waiters: Array<(key: CryptoKey) => void>;
}
const pools = new WeakMap<readonly CryptoKey[], CopyPool>();

/**
 * Runs `fn` with a private-key copy no other operation is using (see {@link EncryptionKey.privateKeys}); when
 * all copies are busy the call waits for one, so the thread pool never blocks on a key's lock.
 */
export async function withPrivateKey<T>(
  key: Pick<EncryptionKey, 'privateKeys'>,
  fn: (privateKey: CryptoKey) => Promise<T>,
): Promise<T> {
  let pool = pools.get(key.privateKeys);
  if (!pool) {
    pool = { free: [...key.privateKeys], waiters: [] };
    pools.set(key.privateKeys, pool);
  }
  const copy = pool.free.pop() ?? (await new Promise<CryptoKey>((resolve) => pool.waiters.push(resolve)));
  try {
    return await fn(copy);
  } finally {
    const waiter = pool.waiters.shift();
    if (waiter) waiter(copy);
    else pool.free.push(copy);
  }
}
