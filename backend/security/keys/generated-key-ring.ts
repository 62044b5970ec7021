import { type EncryptionKey, isUsable, type KeyStore, type KeyStoreOptions, newestFirst } from './key-store';

/** The pieces of a new key pair a {@link GeneratedKeyRing} needs from its generator. */
export type GeneratedKey = Pick<EncryptionKey, 'kid' | 'privateKey' | 'publicJwk'>;

/**
 * A key ring held in memory whose keys this process generates itself: rotation is a method call, and a
 * retired key keeps decrypting for `graceMs` on the injected clock. The stores differ only in how they make
 * a key pair, so each passes its generator. This module imports nothing from Node, so a store built on it
 * can run in a browser.
 */
export class GeneratedKeyRing implements KeyStore {
  readonly #keys: EncryptionKey[] = [];
  readonly #graceMs: number;
  readonly #now: () => number;
  readonly #generate: () => Promise<GeneratedKey>;

  protected constructor(options: KeyStoreOptions, generate: () => Promise<GeneratedKey>) {
    this.#graceMs = options.graceMs;
    this.#now = options.now ?? Date.now;
    this.#generate = generate;
  }

  /** Adds a new active key and retires the previous one (it keeps decrypting during the grace period). */
  async rotate(): Promise<EncryptionKey> {
    const { kid, privateKey, publicJwk } = await this.#generate();
    const now = this.#now();
    for (const key of this.#keys) key.retiredAt ??= now;
    // Strictly after the previous key even on a clock that has not moved, so newest-first stays exact.
    const key: EncryptionKey = {
      kid,
      privateKey,
      publicJwk,
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
