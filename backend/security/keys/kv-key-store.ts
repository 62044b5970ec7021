import { createPrivateKey } from 'node:crypto';
import type { KeyValueStore } from '../../bus/bus';
import { PlatformError } from '../../http/errors';
import type { KeyEncryptionKey } from './key-encryption-key';
import { generateKeyMaterial, loadKeyMaterial } from './key-material';
import { type EncryptionKey, isUsable, type KeyStore, type KeyStoreOptions, newestFirst } from './key-store';

/** KV bucket of the key ring MACROSERVICE gateways share (no TTL). */
export const KEY_RING_BUCKET = 'platform_keys';
/** The one key of that bucket: the whole ring, so a rotation is one atomic compare-and-set. */
export const KEY_RING_KEY = 'ring';

/** One key of the shared ring: metadata and the PKCS#8 private key wrapped with the key-encryption key. */
export interface SharedKeyEntry {
  kid: string;
  created_at: string;
  retired_at: string | null;
  wrapped: string;
}

/** The value stored under {@link KEY_RING_KEY}, newest key first. */
export interface SharedKeyRing {
  keys: SharedKeyEntry[];
}

/** Options of {@link KvKeyStore}. */
export interface KvKeyStoreOptions extends KeyStoreOptions {
  store: KeyValueStore<SharedKeyRing>;
  kek: KeyEncryptionKey;
  /** How often lookups re-read the ring (must be well under `jwks_max_age_seconds`); default 5 s. */
  refreshMs?: number;
  /** Minimum time between re-reads caused by an unknown kid; default 1 s. */
  unknownKidCooldownMs?: number;
}

/**
 * The key ring every gateway of a MACROSERVICE deployment shares (docs/operators.md#n-gateways):
 * kept in NATS KV, private keys wrapped with the key-encryption key each gateway is given (never stored in
 * clear). A JWE made from any gateway's JWKS decrypts on every gateway. A rotation by any gateway (or
 * `m keys rotate`) is seen by the others within `refreshMs`, and at once by one receiving the new kid.
 */
export class KvKeyStore implements KeyStore {
  readonly #o: KvKeyStoreOptions;
  readonly #now: () => number;
  #keys: EncryptionKey[] = [];
  #revision = -1;
  #checkedAt = 0;
  #forcedAt = 0;
  #reloading?: Promise<void>;

  private constructor(options: KvKeyStoreOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Opens the shared ring, creating its first key when it holds none (the first gateway of a deployment). */
  static async open(options: KvKeyStoreOptions): Promise<KvKeyStore> {
    const store = new KvKeyStore(options);
    const current = await options.store.get(KEY_RING_KEY);
    if (!current?.value.keys.some((k) => k.retired_at === null)) await store.rotate();
    await store.#reload();
    return store;
  }

  /** Adds a new active key and retires the previous one (atomic; retried when another gateway wrote first). */
  async rotate(): Promise<string> {
    const material = await generateKeyMaterial();
    const der = createPrivateKey(material.privatePem).export({ format: 'der', type: 'pkcs8' });
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await this.#o.store.get(KEY_RING_KEY);
      const now = this.#now();
      const stamp = new Date(now).toISOString();
      const kept = (current?.value.keys ?? [])
        .map((k) => ({ ...k, retired_at: k.retired_at ?? stamp }))
        .filter((k) => Date.parse(k.retired_at) + this.#o.graceMs > now);
      const ring: SharedKeyRing = {
        keys: [
          { kid: material.kid, created_at: stamp, retired_at: null, wrapped: this.#o.kek.wrap(der) },
          ...kept,
        ],
      };
      try {
        if (current) await this.#o.store.update(KEY_RING_KEY, ring, current.revision);
        else await this.#o.store.create(KEY_RING_KEY, ring);
        this.#checkedAt = 0;
        await this.#reload();
        return material.kid;
      } catch (err) {
        const code = (err as PlatformError).code;
        if (code !== 'kv_revision_mismatch' && code !== 'kv_key_exists') throw err;
      }
    }
    throw new PlatformError(
      'kv_revision_mismatch',
      'The shared key ring kept changing; try the rotation again.',
    );
  }

  async active(): Promise<EncryptionKey> {
    await this.#refresh(false);
    const active = this.#keys.find((k) => k.retiredAt === undefined) ?? this.#keys[0];
    if (!active) throw new Error('no encryption key in the shared key ring');
    return active;
  }

  async usable(): Promise<EncryptionKey[]> {
    await this.#refresh(false);
    const now = this.#now();
    return this.#keys.filter((k) => isUsable(k, this.#o.graceMs, now));
  }

  async find(kid: string): Promise<EncryptionKey | undefined> {
    await this.#refresh(false);
    let key = this.#keys.find((k) => k.kid === kid);
    if (!key) {
      await this.#refresh(true);
      key = this.#keys.find((k) => k.kid === kid);
    }
    return key && isUsable(key, this.#o.graceMs, this.#now()) ? key : undefined;
  }

  async #refresh(unknownKid: boolean): Promise<void> {
    const t = Date.now();
    if (unknownKid) {
      if (t - this.#forcedAt < (this.#o.unknownKidCooldownMs ?? 1_000)) return;
      this.#forcedAt = t;
    } else if (t - this.#checkedAt < (this.#o.refreshMs ?? 5_000)) return;
    this.#checkedAt = t;
    this.#reloading ??= this.#reload()
      .catch(() => {
        // NATS unreachable: keep serving the keys already held.
      })
      .finally(() => {
        this.#reloading = undefined;
      });
    await this.#reloading;
  }

  async #reload(): Promise<void> {
    const entry = await this.#o.store.get(KEY_RING_KEY);
    if (!entry || entry.revision === this.#revision) return;
    const known = new Map(this.#keys.map((k) => [k.kid, k]));
    const keys: EncryptionKey[] = [];
    for (const shared of entry.value.keys) {
      const retiredAt = shared.retired_at === null ? undefined : Date.parse(shared.retired_at);
      const cached = known.get(shared.kid);
      if (cached) {
        keys.push({ ...cached, retiredAt });
        continue;
      }
      const der = this.#o.kek.unwrap(shared.wrapped);
      const pem = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({
        format: 'pem',
        type: 'pkcs8',
      });
      const material = await loadKeyMaterial(pem.toString());
      if (material.kid !== shared.kid) throw new Error('the shared key ring holds a key under another kid');
      keys.push({
        kid: material.kid,
        privateKeys: material.privateKeys,
        publicJwk: material.publicJwk,
        createdAt: Date.parse(shared.created_at),
        retiredAt,
      });
    }
    this.#keys = keys.sort(newestFirst);
    this.#revision = entry.revision;
  }
}
