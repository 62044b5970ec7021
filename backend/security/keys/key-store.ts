import type { webcrypto } from 'node:crypto';
import type { EncryptionJwk } from '../../../src/protocol';

/** WebCrypto's key type (Node's and the browser's are the same API). */
type CryptoKey = webcrypto.CryptoKey;

/**
 * One payload-encryption key as the server holds it. The private half is held as a non-extractable WebCrypto
 * key, so the key material cannot be exported by accident.
 */
export interface EncryptionKey {
  kid: string;
  /** The RSA-OAEP (SHA-256) private key, usage `decrypt` only. */
  privateKey: CryptoKey;
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

/** One key as a stored ring lists it: an entry of `keyring.json` or of the ring the gateways share. */
export interface RingEntry {
  kid: string;
  created_at: string;
  retired_at: string | null;
}

/**
 * The keys a stored ring lists, newest first. A key already `held` is reused with the retirement the ring
 * now gives it, so a re-read loads only the keys added since; any other comes from `load`, which checks that
 * it is the key the entry names.
 */
export async function keysOfRing<E extends RingEntry>(
  entries: readonly E[],
  held: readonly EncryptionKey[],
  load: (entry: E) => Promise<Pick<EncryptionKey, 'kid' | 'privateKey' | 'publicJwk'>>,
): Promise<EncryptionKey[]> {
  const known = new Map(held.map((k) => [k.kid, k]));
  const keys: EncryptionKey[] = [];
  for (const entry of entries) {
    const retiredAt = entry.retired_at === null ? undefined : Date.parse(entry.retired_at);
    const cached = known.get(entry.kid);
    if (cached) {
      keys.push({ ...cached, retiredAt });
      continue;
    }
    const material = await load(entry);
    keys.push({
      kid: material.kid,
      privateKey: material.privateKey,
      publicJwk: material.publicJwk,
      createdAt: Date.parse(entry.created_at),
      retiredAt,
    });
  }
  return keys.sort(newestFirst);
}

/**
 * Re-reads of a key ring caused by JWEs naming a kid the server does not hold: the client may have fetched
 * the JWKS after a rotation this process has not seen yet (`m keys rotate`, another gateway). A request
 * waits for a read that started after it arrived, since the write that made its kid came before it; at most
 * one read starts per cooldown (a flood of unknown kids costs one read per cooldown), and waiting requests
 * share it. A read that fails leaves the keys held as they were.
 */
export class UnknownKidReads {
  readonly #read: () => Promise<void>;
  readonly #cooldownMs: number;
  #started = 0;
  #lastFinished = 0;
  #lastStartedAt = Number.NEGATIVE_INFINITY;
  #underWay?: Promise<void>;

  /** `read` re-reads the ring and applies it; `cooldownMs` is the least time between two starts. */
  constructor(read: () => Promise<void>, cooldownMs: number) {
    this.#read = read;
    this.#cooldownMs = cooldownMs;
  }

  /** Taken when a request arrives, before anything it awaits: reads started up to now are too early. */
  arrived(): number {
    return this.#started;
  }

  /**
   * `lookup()` as it is, or after a read of the ring that started after `arrival` (at most two reads: the
   * one under way when the request arrived, then a fresh one).
   */
  async find<T>(arrival: number, lookup: () => T | undefined): Promise<T | undefined> {
    let found = lookup();
    while (found === undefined && this.#lastFinished <= arrival) {
      await (this.#underWay ?? this.#start());
      found = lookup();
    }
    return found;
  }

  #start(): Promise<void> {
    const wait = this.#lastStartedAt + this.#cooldownMs - Date.now();
    const read = (async () => {
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const id = ++this.#started;
      this.#lastStartedAt = Date.now();
      try {
        await this.#read();
      } catch {
        // Unreadable for now (NATS unreachable, a file being replaced): the kid stays unknown and the
        // request is refused with `unknown_key`; the keys held keep serving.
      } finally {
        this.#lastFinished = id;
        this.#underWay = undefined;
      }
    })();
    this.#underWay = read;
    return read;
  }
}
