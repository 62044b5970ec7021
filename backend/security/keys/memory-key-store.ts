import { generateKeyMaterial } from './key-material';
import { type EncryptionKey, isUsable, type KeyStore, type KeyStoreOptions, newestFirst } from './key-store';

/**
 * A key store held in memory only: for tests and for processes that must not touch the disk. Rotation is a
 * method call; the retired key keeps decrypting for `graceMs` on the injected clock.
 */
export class MemoryKeyStore implements KeyStore {
  readonly #keys: EncryptionKey[] = [];
  readonly #graceMs: number;
  readonly #now: () => number;

  private constructor(options: KeyStoreOptions) {
    this.#graceMs = options.graceMs;
    this.#now = options.now ?? Date.now;
  }

  /** Creates a store holding one freshly generated active key. */
  static async create(options: KeyStoreOptions): Promise<MemoryKeyStore> {
    const store = new MemoryKeyStore(options);
    await store.rotate();
    return store;
  }

  /** Adds a new active key and retires the previous one (it keeps decrypting during the grace period). */
  async rotate(): Promise<EncryptionKey> {
    const material = await generateKeyMaterial();
    const now = this.#now();
    for (const key of this.#keys) key.retiredAt ??= now;
    const key: EncryptionKey = {
      kid: material.kid,
      privateKeys: material.privateKeys,
      publicJwk: material.publicJwk,
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
