import { PlatformError } from '../http/errors';
import {
  type Bus,
  type BusStatus,
  type KeyValueOptions,
  type KeyValueStore,
  KV_KEY_PATTERN,
  type KvEntry,
  type KvEvent,
  type MessageHandler,
  type Unsubscribe,
} from './bus';
import { subjectMatches } from './subject-match';

/** Options of {@link InProcessBus}: the clock is injectable so tests can expire keys without waiting. */
export interface InProcessBusOptions {
  now?: () => number;
}

/**
 * The embedded bus of a single process (MONOLITH and tests): subjects are delivered synchronously to the
 * matching subscribers (payloads are JSON round-tripped so no subscriber shares an object with the
 * publisher), and buckets are Maps whose keys expire `ttlMs` after their last write. Behaves like
 * {@link NatsBus} on everything the platform relies on, including silent expiry.
 */
export class InProcessBus implements Bus {
  readonly kind = 'in-process' as const;
  readonly #now: () => number;
  readonly #subscriptions = new Set<{ pattern: string; handler: MessageHandler }>();
  readonly #buckets = new Map<string, InProcessKeyValue<unknown>>();
  #closed = false;

  constructor(options: InProcessBusOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  async publish(subject: string, data: unknown): Promise<void> {
    if (this.#closed) throw new PlatformError('bus_closed', 'The bus is closed.');
    const text = JSON.stringify(data);
    for (const sub of [...this.#subscriptions]) {
      if (subjectMatches(sub.pattern, subject)) sub.handler(JSON.parse(text), subject);
    }
  }

  subscribe(subject: string, handler: MessageHandler): Unsubscribe {
    const sub = { pattern: subject, handler };
    this.#subscriptions.add(sub);
    return () => this.#subscriptions.delete(sub);
  }

  async keyValue<T = unknown>(bucket: string, options: KeyValueOptions): Promise<KeyValueStore<T>> {
    let store = this.#buckets.get(bucket);
    if (!store) {
      store = new InProcessKeyValue(bucket, options.ttlMs, this.#now);
      this.#buckets.set(bucket, store);
    }
    return store as InProcessKeyValue<T>;
  }

  status(): BusStatus {
    return this.#closed ? 'closed' : 'connected';
  }

  onStatus(): Unsubscribe {
    return () => {};
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#subscriptions.clear();
    for (const store of this.#buckets.values()) store.closeWatches();
  }
}

let sequence = 0;

class InProcessKeyValue<T> implements KeyValueStore<T> {
  readonly #entries = new Map<string, { json: string; revision: number; created: number }>();
  readonly #watchers = new Set<(event: KvEvent<T>) => void>();

  constructor(
    readonly bucket: string,
    readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  #live(key: string) {
    const entry = this.#entries.get(key);
    // A TTL of 0 means no expiry, as for a NATS bucket.
    if (entry && this.ttlMs > 0 && this.now() - entry.created >= this.ttlMs) {
      // Expired like a NATS bucket TTL: removed silently, no watch event.
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #toEntry(key: string, raw: { json: string; revision: number; created: number }): KvEntry<T> {
    return { key, value: JSON.parse(raw.json) as T, revision: raw.revision, created: new Date(raw.created) };
  }

  #write(key: string, value: T): number {
    if (!KV_KEY_PATTERN.test(key)) throw new PlatformError('kv_invalid_key', 'Invalid key-value key.');
    const raw = { json: JSON.stringify(value), revision: ++sequence, created: this.now() };
    this.#entries.set(key, raw);
    for (const watcher of [...this.#watchers]) watcher({ type: 'put', entry: this.#toEntry(key, raw) });
    return raw.revision;
  }

  async get(key: string): Promise<KvEntry<T> | null> {
    const raw = this.#live(key);
    return raw ? this.#toEntry(key, raw) : null;
  }

  async put(key: string, value: T): Promise<number> {
    return this.#write(key, value);
  }

  async create(key: string, value: T): Promise<number> {
    if (this.#live(key)) throw new PlatformError('kv_key_exists', 'The key already exists.');
    return this.#write(key, value);
  }

  async update(key: string, value: T, revision: number): Promise<number> {
    if (this.#live(key)?.revision !== revision) {
      throw new PlatformError('kv_revision_mismatch', 'The key changed since it was read.');
    }
    return this.#write(key, value);
  }

  async delete(key: string): Promise<void> {
    if (!this.#entries.delete(key)) return;
    const revision = ++sequence;
    for (const watcher of [...this.#watchers]) watcher({ type: 'delete', key, revision });
  }

  async entries(): Promise<KvEntry<T>[]> {
    const out: KvEntry<T>[] = [];
    for (const key of [...this.#entries.keys()]) {
      const raw = this.#live(key);
      if (raw) out.push(this.#toEntry(key, raw));
    }
    return out;
  }

  async watch(listener: (event: KvEvent<T>) => void): Promise<Unsubscribe> {
    listener({ type: 'snapshot', entries: await this.entries() });
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  closeWatches(): void {
    this.#watchers.clear();
  }
}
