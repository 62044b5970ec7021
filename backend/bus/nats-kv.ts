import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { type KV, type KvWatchEntry, KvWatchInclude, type KvEntry as NatsEntry } from '@nats-io/kv';
import type { QueuedIterator } from '@nats-io/nats-core';
import { PlatformError } from '../http/errors';
import type { Bus, KeyValueStore, KvEntry, KvEvent, Unsubscribe } from './bus';

/** A write refused because the key's last revision was not the expected one. */
function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * True when an operation failed because the bucket's stream does not exist: NATS came back with an empty
 * store (its JetStream directory lost), so every bucket must be created again.
 */
export function isMissingBucket(err: unknown): boolean {
  if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return true;
  const e = err as { code?: unknown; message?: unknown; name?: unknown } | undefined;
  const text = `${String(e?.name ?? '')} ${String(e?.message ?? '')}`.toLowerCase();
  return text.includes('no responders') || text.includes('stream not found') || e?.code === '503';
}

function decode<T>(entry: NatsEntry): KvEntry<T> | null {
  if (entry.operation !== 'PUT') return null;
  try {
    return { key: entry.key, value: entry.json<T>(), revision: entry.revision, created: entry.created };
  } catch {
    return null; // a value that is not JSON was not written by the platform: ignored
  }
}

/**
 * {@link KeyValueStore} over a JetStream KV bucket (history 1, bucket-wide TTL). `create` / `update` use the
 * server's expected-last-sequence check, so they are atomic across processes.
 *
 * A watch is an `UpdatesOnly` KV watcher plus a snapshot read after it starts (the watcher is created first
 * so no write falls between the two; a write seen twice is harmless because revisions only grow). When the
 * bus reconnects, the watcher is recreated and a fresh snapshot reported, which also covers a restarted
 * server whose consumers are gone.
 */
export class NatsKeyValue<T> implements KeyValueStore<T> {
  readonly #watches = new Set<Unsubscribe>();
  #kv: KV;
  #reopening?: Promise<KV>;

  /**
   * `reopen` creates the bucket again (same TTL, history 1) when NATS lost it; it is called when an operation
   * finds the stream missing and after every reconnect, so the bucket is back before the next heartbeat.
   */
  constructor(
    kv: KV,
    readonly bucket: string,
    readonly ttlMs: number,
    private readonly bus: Pick<Bus, 'onStatus'>,
    private readonly reopen?: () => Promise<KV>,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.#kv = kv;
    if (reopen) {
      bus.onStatus((status) => {
        if (status === 'connected') void this.#recreate().catch(() => {});
      });
    }
  }

  /**
   * Creates the bucket again (idempotent when it exists), one attempt at a time: operations failing together
   * and the reconnect share it. When the bucket was indeed gone (NATS lost its store) that is logged, once
   * per loss, by the attempt that found it missing.
   */
  #recreate(): Promise<KV> {
    if (!this.reopen) return Promise.resolve(this.#kv);
    const reopen = this.reopen;
    this.#reopening ??= (async () => {
      const missing = await this.#kv.status().then(
        () => false,
        (err: unknown) => isMissingBucket(err),
      );
      const kv = await reopen();
      this.#kv = kv;
      if (missing)
        this.log(`bus: KV bucket ${this.bucket} was missing on NATS (store lost); created it again`);
      return kv;
    })().finally(() => {
      this.#reopening = undefined;
    });
    return this.#reopening;
  }

  /** Runs `op`; when the bucket is gone (NATS lost its store), creates it again and retries once. */
  async #run<R>(op: (kv: KV) => Promise<R>): Promise<R> {
    try {
      return await op(this.#kv);
    } catch (err) {
      if (!this.reopen || !isMissingBucket(err)) throw err;
      return op(await this.#recreate());
    }
  }

  async get(key: string): Promise<KvEntry<T> | null> {
    const entry = await this.#run((kv) => kv.get(key));
    return entry ? decode<T>(entry) : null;
  }

  async put(key: string, value: T): Promise<number> {
    return this.#run((kv) => kv.put(key, JSON.stringify(value)));
  }

  async create(key: string, value: T): Promise<number> {
    try {
      return await this.#run((kv) => kv.create(key, JSON.stringify(value)));
    } catch (cause) {
      if (isWrongLastSequence(cause)) {
        throw new PlatformError('kv_key_exists', 'The key already exists.', { cause });
      }
      throw cause;
    }
  }

  async update(key: string, value: T, revision: number): Promise<number> {
    try {
      return await this.#run((kv) => kv.update(key, JSON.stringify(value), revision));
    } catch (cause) {
      if (isWrongLastSequence(cause)) {
        throw new PlatformError('kv_revision_mismatch', 'The key changed since it was read.', { cause });
      }
      throw cause;
    }
  }

  async delete(key: string): Promise<void> {
    await this.#run((kv) => kv.delete(key));
  }

  async entries(): Promise<KvEntry<T>[]> {
    const keys: string[] = [];
    for await (const key of await this.#run((kv) => kv.keys())) keys.push(key);
    const entries = await Promise.all(keys.map((key) => this.get(key)));
    return entries.filter((e): e is KvEntry<T> => e !== null);
  }

  async watch(listener: (event: KvEvent<T>) => void): Promise<Unsubscribe> {
    let stopped = false;
    let iter: QueuedIterator<KvWatchEntry> | undefined;

    const start = async () => {
      iter = await this.#run((kv) => kv.watch({ include: KvWatchInclude.UpdatesOnly }));
      listener({ type: 'snapshot', entries: await this.entries() });
      return iter;
    };
    const consume = async (current: QueuedIterator<KvWatchEntry>) => {
      for await (const e of current) {
        if (stopped) break;
        if (e.operation === 'PUT') {
          const entry = decode<T>(e);
          if (entry) listener({ type: 'put', entry });
        } else listener({ type: 'delete', key: e.key, revision: e.revision });
      }
    };
    const loop = async (first: QueuedIterator<KvWatchEntry>) => {
      let current: QueuedIterator<KvWatchEntry> | undefined = first;
      while (!stopped) {
        if (current) await consume(current).catch(() => {});
        current = undefined;
        if (stopped) break;
        // The watcher ended (reconnect, server restart): recreate it once the server answers again.
        await new Promise((r) => setTimeout(r, 250));
        current = await start().catch(() => undefined);
      }
    };

    const first = await start();
    void loop(first);
    // After a reconnect the old consumer may be gone: stop it so the loop recreates it and resyncs.
    const offStatus = this.bus.onStatus((status) => {
      if (status === 'connected') iter?.stop();
    });
    const unsubscribe = () => {
      stopped = true;
      offStatus();
      iter?.stop();
      this.#watches.delete(unsubscribe);
    };
    this.#watches.add(unsubscribe);
    return unsubscribe;
  }

  /** Stops every watch of this bucket (bus shutdown). */
  closeWatches(): void {
    for (const unsubscribe of [...this.#watches]) unsubscribe();
  }
}
