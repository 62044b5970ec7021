import { readFile } from 'node:fs/promises';
import { ensureKeyDir, keyRingStamp, pemPath, readKeyRing } from './key-dir';
import { loadKeyMaterial } from './key-material';
import {
  type EncryptionKey,
  isUsable,
  type KeyStore,
  type KeyStoreOptions,
  keysOfRing,
  UnknownKidReads,
} from './key-store';

/** Options of {@link FileKeyStore}. */
export interface FileKeyStoreOptions extends KeyStoreOptions {
  /** The key directory, `<data_dir>/keys`. */
  dir: string;
  /** How often `active()` / `usable()` look for a rotation by another process (`m keys rotate`). */
  refreshMs?: number;
  /** Minimum time between re-reads triggered by an unknown kid (so unknown kids cannot hammer the disk). */
  unknownKidCooldownMs?: number;
}

/**
 * The key store of a running server: `<data_dir>/keys/keyring.json` plus one `<kid>.pem` per key (0600).
 *
 * A running server picks up `m keys rotate` in two ways: every lookup re-reads the ring when its file stamp
 * changed, checked at most every `refreshMs` (5 s); and a JWE naming a kid the server does not hold waits
 * for a read of the ring that started after it arrived (at most one per `unknownKidCooldownMs`, 1 s), so a
 * client that fetched the new key first is never refused.
 */
export class FileKeyStore implements KeyStore {
  readonly #dir: string;
  readonly #graceMs: number;
  readonly #now: () => number;
  readonly #refreshMs: number;
  #keys: EncryptionKey[] = [];
  #stamp: string | null = null;
  #checkedAt = 0;
  #reloading?: Promise<void>;
  readonly #unknownKidReads: UnknownKidReads;

  private constructor(options: FileKeyStoreOptions) {
    this.#dir = options.dir;
    this.#graceMs = options.graceMs;
    this.#now = options.now ?? Date.now;
    this.#refreshMs = options.refreshMs ?? 5_000;
    this.#unknownKidReads = new UnknownKidReads(async () => {
      // A reload under way may have read the ring before the request's kid was written: let it finish,
      // then read again (joining only a reload that started after this read did).
      await this.#reloading?.catch(() => {});
      await this.#shared();
    }, options.unknownKidCooldownMs ?? 1_000);
  }

  /** Opens the key directory, generating the first key pair when it holds none (first start). */
  static async open(options: FileKeyStoreOptions): Promise<FileKeyStore> {
    await ensureKeyDir(options.dir, { graceMs: options.graceMs, now: options.now });
    const store = new FileKeyStore(options);
    await store.#reload();
    return store;
  }

  async active(): Promise<EncryptionKey> {
    await this.#refresh();
    const active = this.#keys.find((k) => k.retiredAt === undefined) ?? this.#keys[0];
    if (!active) throw new Error(`no encryption key in ${this.#dir}`);
    return active;
  }

  async usable(): Promise<EncryptionKey[]> {
    await this.#refresh();
    const now = this.#now();
    return this.#keys.filter((k) => isUsable(k, this.#graceMs, now));
  }

  async find(kid: string): Promise<EncryptionKey | undefined> {
    const arrival = this.#unknownKidReads.arrived();
    await this.#refresh();
    const key = await this.#unknownKidReads.find(arrival, () => this.#keys.find((k) => k.kid === kid));
    return key && isUsable(key, this.#graceMs, this.#now()) ? key : undefined;
  }

  /** Re-reads the ring when its last check is older than `refreshMs`. */
  async #refresh(): Promise<void> {
    const t = Date.now();
    if (t - this.#checkedAt < this.#refreshMs) return;
    this.#checkedAt = t;
    await this.#shared();
  }

  /** One shared in-flight reload: concurrent requests wait for the same read. */
  #shared(): Promise<void> {
    this.#reloading ??= this.#reload().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  async #reload(): Promise<void> {
    const stamp = await keyRingStamp(this.#dir);
    if (stamp === this.#stamp) return;
    const ring = await readKeyRing(this.#dir);
    this.#keys = await keysOfRing(ring.keys, this.#keys, async (entry) => {
      const material = await loadKeyMaterial(await readFile(pemPath(this.#dir, entry.kid), 'utf8'));
      if (material.kid !== entry.kid) throw new Error(`${entry.kid}.pem does not hold the key it names`);
      return material;
    });
    this.#stamp = stamp;
  }
}
