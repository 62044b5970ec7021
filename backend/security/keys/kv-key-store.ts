import { createPrivateKey } from 'node:crypto';
import type { KeyValueStore, KvEntry } from '../../bus/bus';
import { PlatformError } from '../../http/errors';
import type { KeyEncryptionKey } from './key-encryption-key';
import { generateKeyMaterial, loadKeyMaterial } from './key-material';
import {
  type EncryptionKey,
  isUsable,
  type KeyStore,
  type KeyStoreOptions,
  keysOfRing,
  UnknownKidReads,
} from './key-store';

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
  /**
   * Whether to follow the ring with a KV watch (default true: a long-running gateway). A short-lived
   * process such as `m keys rotate` passes false.
   */
  watch?: boolean;
  /** Minimum time between re-reads caused by an unknown kid; default 1 s. */
  unknownKidCooldownMs?: number;
  /** Told when a ring read from the store cannot be used (a wrong key-encryption key, a corrupt entry). */
  log?: (line: string) => void;
}

/**
 * The key ring every gateway of a MACROSERVICE deployment shares (docs/operators.md#n-gateways):
 * kept in NATS KV, private keys wrapped with the key-encryption key each gateway is given (never stored in
 * clear). A JWE made from any gateway's JWKS decrypts on every gateway.
 *
 * A rotation by any gateway (or `m keys rotate`) reaches the others through a KV watch on the ring's key, as
 * soon as NATS delivers the write (the watch resyncs from the bucket after a reconnect). A JWE naming a kid
 * this gateway does not hold yet (its client fetched the JWKS from a gateway the write reached first) makes
 * it read the ring from the store once, at most every `unknownKidCooldownMs`, before it is refused.
 */
export class KvKeyStore implements KeyStore {
  readonly #o: KvKeyStoreOptions;
  readonly #now: () => number;
  #keys: EncryptionKey[] = [];
  /** The revision and write time of the ring held (-1: none, or the bucket was found empty). */
  #revision = -1;
  #writtenAt = 0;
  /** Ring writes are applied one at a time, in order; an older revision than the one held is ignored. */
  #applying: Promise<void> = Promise.resolve();
  /** Reads of the ring from the store caused by JWEs naming a kid not held. */
  readonly #unknownKidReads: UnknownKidReads;
  #unwatch?: () => void;

  private constructor(options: KvKeyStoreOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#unknownKidReads = new UnknownKidReads(async () => {
      const entry = await this.#o.store.get(KEY_RING_KEY);
      if (entry) await this.#follow(entry);
    }, options.unknownKidCooldownMs ?? 1_000);
  }

  /**
   * Opens the shared ring, creating its first key when it holds none (the first gateway of a deployment),
   * and starts following it (unless `watch` is false).
   */
  static async open(options: KvKeyStoreOptions): Promise<KvKeyStore> {
    const store = new KvKeyStore(options);
    const current = await options.store.get(KEY_RING_KEY);
    if (!current?.value.keys.some((k) => k.retired_at === null)) await store.rotate();
    else await store.#apply(current);
    if (options.watch !== false) {
      store.#unwatch = await options.store.watch((event) => {
        if (event.type === 'put' && event.entry.key === KEY_RING_KEY) void store.#follow(event.entry);
        if (event.type === 'snapshot') void store.#resync(event.entries.find((e) => e.key === KEY_RING_KEY));
        // A deleted ring is not followed: the keys held keep decrypting until a gateway writes a new one.
      });
    }
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
        const revision = current
          ? await this.#o.store.update(KEY_RING_KEY, ring, current.revision)
          : await this.#o.store.create(KEY_RING_KEY, ring);
        await this.#apply({ key: KEY_RING_KEY, value: ring, revision, created: new Date(now) });
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
    await this.#applying;
    const active = this.#keys.find((k) => k.retiredAt === undefined) ?? this.#keys[0];
    if (!active) throw new Error('no encryption key in the shared key ring');
    return active;
  }

  async usable(): Promise<EncryptionKey[]> {
    await this.#applying;
    const now = this.#now();
    return this.#keys.filter((k) => isUsable(k, this.#o.graceMs, now));
  }

  async find(kid: string): Promise<EncryptionKey | undefined> {
    const arrival = this.#unknownKidReads.arrived();
    await this.#applying;
    const key = await this.#unknownKidReads.find(arrival, () => this.#keys.find((k) => k.kid === kid));
    return key && isUsable(key, this.#o.graceMs, this.#now()) ? key : undefined;
  }

  /** Stops following the ring. The keys held stay usable. */
  close(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  /**
   * A watch snapshot (at start and after every reconnect) is the bucket as it is now, so it is applied even
   * when its revision is lower than the one held: NATS may have lost its store and the ring been written
   * again, restarting revisions. No ring in it: the keys held stay, and the next ring written is taken.
   */
  #resync(entry: KvEntry<SharedKeyRing> | undefined): Promise<void> {
    if (entry) return this.#follow(entry, true);
    const run = this.#applying.then(() => {
      this.#revision = -1;
    });
    this.#applying = run;
    return run;
  }

  /** Applies a ring seen by the watch or a read, logging (not throwing) when it cannot be used. */
  #follow(entry: KvEntry<SharedKeyRing>, current = false): Promise<void> {
    return this.#apply(entry, current).catch((err: Error) => {
      this.#o.log?.(`key ring revision ${entry.revision} not applied: ${err.message}`);
    });
  }

  /**
   * Queues `entry` behind the writes already being applied; settles once it is (or was) applied. An entry
   * older than the ring held is skipped, unless it is known `current` (a snapshot).
   */
  #apply(entry: KvEntry<SharedKeyRing>, current = false): Promise<void> {
    const run = this.#applying.then(() => this.#load(entry, current));
    // The queue itself never rejects, so one bad entry does not block those after it.
    this.#applying = run.catch(() => {});
    return run;
  }

  async #load(entry: KvEntry<SharedKeyRing>, current: boolean): Promise<void> {
    const held = entry.revision === this.#revision && entry.created.getTime() === this.#writtenAt;
    if (current ? held : entry.revision <= this.#revision) return;
    this.#keys = await keysOfRing(entry.value.keys, this.#keys, async (shared) => {
      const der = this.#o.kek.unwrap(shared.wrapped);
      const pem = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({
        format: 'pem',
        type: 'pkcs8',
      });
      const material = await loadKeyMaterial(pem.toString());
      if (material.kid !== shared.kid) throw new Error('the shared key ring holds a key under another kid');
      return material;
    });
    this.#revision = entry.revision;
    this.#writtenAt = entry.created.getTime();
  }
}
