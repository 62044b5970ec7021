/**
 * The message bus the platform's processes share: subjects for broadcasts and a key-value store with a
 * bucket-wide TTL for state that must outlive one process (service manifests, idempotency records).
 * Two implementations: {@link InProcessBus} (the embedded default; MONOLITH) and {@link NatsBus}
 * (MACROSERVICE: core NATS subjects and JetStream KV buckets).
 */

/** Stops a subscription or a watch. Safe to call twice. */
export type Unsubscribe = () => void;

/** Receives the decoded JSON payload of a message published on a matching subject. */
export type MessageHandler = (data: unknown, subject: string) => void;

/** Connection state of a bus: an in-process bus is always `connected`. */
export type BusStatus = 'connected' | 'disconnected' | 'closed';

/** One live key of a bucket. */
export interface KvEntry<T = unknown> {
  key: string;
  value: T;
  /** Bucket-wide sequence of the write that produced this value; increases with every write. */
  revision: number;
  /** When the value was written (the server's clock for NATS). */
  created: Date;
}

/**
 * What a watch reports. `snapshot` carries the complete live content of the bucket: first when the watch
 * starts, again after every reconnect (so deletions missed while disconnected are seen); listeners replace
 * their state with it. `put` / `delete` follow as they happen. A key that expires through the bucket TTL is
 * NOT reported (nats-server 2.9 sends nothing for it): keep your own clock when expiry matters.
 */
export type KvEvent<T = unknown> =
  | { type: 'snapshot'; entries: KvEntry<T>[] }
  | { type: 'put'; entry: KvEntry<T> }
  | { type: 'delete'; key: string; revision: number };

/** Options of {@link Bus.keyValue}. */
export interface KeyValueOptions {
  /** Bucket-wide TTL: a key not written again within it is removed by the store; 0 keeps keys forever. */
  ttlMs: number;
}

/**
 * A key-value bucket. Keys are NATS-KV-safe (`[A-Za-z0-9_=/.-]+`); values are JSON.
 * `create` and `update` are atomic compare-and-set operations, so several processes can race on one key
 * and exactly one wins.
 */
export interface KeyValueStore<T = unknown> {
  readonly bucket: string;
  readonly ttlMs: number;
  /** The live value, or null when the key is absent, deleted or expired. */
  get(key: string): Promise<KvEntry<T> | null>;
  /** Writes unconditionally; resolves to the new revision. */
  put(key: string, value: T): Promise<number>;
  /** Writes only when the key is absent (or deleted/expired); else throws `PlatformError` `kv_key_exists`. */
  create(key: string, value: T): Promise<number>;
  /** Writes only when the key is still at `revision`; else throws `PlatformError` `kv_revision_mismatch`. */
  update(key: string, value: T, revision: number): Promise<number>;
  /** Removes the key (watchers see a `delete`). */
  delete(key: string): Promise<void>;
  /** Every live entry of the bucket. */
  entries(): Promise<KvEntry<T>[]>;
  /** Reports a `snapshot`, then every change, until the returned function is called. */
  watch(listener: (event: KvEvent<T>) => void): Promise<Unsubscribe>;
}

/** The bus. Payloads are JSON values; a payload that is not valid JSON is dropped, never delivered. */
export interface Bus {
  readonly kind: 'in-process' | 'nats';
  /** Publishes `data` (JSON-serialisable) on `subject`. Fire and forget: no delivery guarantee. */
  publish(subject: string, data: unknown): Promise<void>;
  /** Subscribes to a subject; `*` matches one token and a final `>` one or more, as in NATS. */
  subscribe(subject: string, handler: MessageHandler): Unsubscribe;
  /** Opens (creating when missing) a bucket with a bucket-wide TTL. */
  keyValue<T = unknown>(bucket: string, options: KeyValueOptions): Promise<KeyValueStore<T>>;
  /** Current connection state. */
  status(): BusStatus;
  /** Reports connection changes (`disconnected` when NATS is lost, `connected` after a reconnect). */
  onStatus(listener: (status: BusStatus) => void): Unsubscribe;
  /** Stops subscriptions and watches and, for NATS, drains the connection. */
  close(): Promise<void>;
}

/** Subject of the legacy startup broadcast (docs/operators.md#bus-subjects-and-kv-layout). */
export const SCHEMA_DISCOVERY_SUBJECT = 'infra.schema.discovery';

/** Pattern of a valid KV key. */
export const KV_KEY_PATTERN = /^[A-Za-z0-9_=/-]+(\.[A-Za-z0-9_=/-]+)*$/;
