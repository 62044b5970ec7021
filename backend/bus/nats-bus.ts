import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../context';
import { PlatformError } from '../http/errors';
import type { Bus, BusStatus, KeyValueOptions, KeyValueStore, MessageHandler, Unsubscribe } from './bus';
import { NatsKeyValue } from './nats-kv';

/** Options of {@link NatsBus.connect}. */
export interface NatsBusOptions {
  /** `nats://host:port` (several comma-separated for a cluster). */
  url: string;
  log: Logger;
  /** Connection name shown by the server's monitoring, e.g. `desk-gateway`. */
  name?: string;
  /** First retry delay when NATS is unavailable at start; doubles up to {@link maxDelayMs}. Default 500. */
  initialDelayMs?: number;
  /** Largest retry delay. Default 10,000. */
  maxDelayMs?: number;
  /** Give up after this many failed attempts (`bus_unavailable`); default: retry forever. */
  maxAttempts?: number;
  /** Aborts the retry loop (e.g. on SIGTERM while waiting for NATS). */
  signal?: AbortSignal;
}

/** A NATS URL without credentials, for log lines (never log `user:password@`). */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/g, '//***@');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * The MACROSERVICE bus: core NATS subjects for broadcasts and JetStream KV buckets for shared state.
 *
 * Resilience: {@link NatsBus.connect} retries an unavailable server with exponential backoff, logging one
 * line per attempt (`bus: NATS at nats://... unavailable (...); retrying in 1s (attempt 2)`); once
 * connected the client reconnects forever, and `onStatus` reports `disconnected` / `connected` so watchers
 * can keep their last known state and resync afterwards.
 */
export class NatsBus implements Bus {
  readonly kind = 'nats' as const;
  readonly #listeners = new Set<(status: BusStatus) => void>();
  readonly #kvm: Kvm;
  /**
   * One store per bucket, as the in-process bus: the parts of a process that open the same bucket share one
   * re-creation after NATS lost its store, and one log line for it.
   */
  readonly #stores = new Map<string, Promise<NatsKeyValue<unknown>>>();
  #status: BusStatus = 'connected';

  private constructor(
    readonly nc: NatsConnection,
    private readonly log: Logger,
  ) {
    this.#kvm = new Kvm(nc);
    void this.#watchStatus();
  }

  /** Connects, retrying with backoff while the server is unavailable (see the class comment). */
  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const where = redactUrl(options.url);
    const maxDelay = options.maxDelayMs ?? 10_000;
    let delay = options.initialDelayMs ?? 500;
    for (let attempt = 1; ; attempt++) {
      try {
        const nc = await connect({
          servers: options.url.split(',').map((s) => s.trim()),
          name: options.name,
          timeout: 2_000,
          reconnect: true,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
          pingInterval: 5_000,
        });
        if (attempt > 1) options.log(`bus: connected to NATS at ${where} after ${attempt} attempts`);
        return new NatsBus(nc, options.log);
      } catch (cause) {
        const reason = (cause as { code?: string }).code ?? (cause as Error).message;
        if (
          options.signal?.aborted ||
          (options.maxAttempts !== undefined && attempt >= options.maxAttempts)
        ) {
          throw new PlatformError('bus_unavailable', `NATS at ${where} is unavailable (${reason}).`, {
            status: 503,
            cause,
          });
        }
        options.log(
          `bus: NATS at ${where} unavailable (${reason}); retrying in ${(delay / 1000).toFixed(1)}s (attempt ${attempt + 1})`,
        );
        await sleep(delay, options.signal);
        delay = Math.min(delay * 2, maxDelay);
      }
    }
  }

  async #watchStatus(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') this.#set('disconnected');
      else if (s.type === 'reconnect') this.#set('connected');
    }
  }

  #set(status: BusStatus): void {
    if (this.#status === status || this.#status === 'closed') return;
    this.#status = status;
    this.log(
      `bus: NATS ${status === 'connected' ? 'reconnected' : 'connection lost; serving last known state'}`,
    );
    for (const listener of [...this.#listeners]) listener(status);
  }

  async publish(subject: string, data: unknown): Promise<void> {
    this.nc.publish(subject, JSON.stringify(data));
  }

  subscribe(subject: string, handler: MessageHandler): Unsubscribe {
    const sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        let data: unknown;
        try {
          data = msg.json();
        } catch {
          return; // not JSON: dropped (the Bus contract)
        }
        handler(data, msg.subject);
      },
    });
    return () => sub.unsubscribe();
  }

  keyValue<T = unknown>(bucket: string, options: KeyValueOptions): Promise<KeyValueStore<T>> {
    let store = this.#stores.get(bucket);
    if (!store) {
      // history 1: only the last value of a key matters; ttl is bucket-wide (per-key TTL needs nats-server 2.11).
      const open = () => this.#kvm.create(bucket, { ttl: options.ttlMs, history: 1 });
      store = open().then((kv) => new NatsKeyValue<unknown>(kv, bucket, options.ttlMs, this, open, this.log));
      // A failed open is not remembered: the next caller tries again.
      store.catch(() => this.#stores.delete(bucket));
      this.#stores.set(bucket, store);
    }
    return store as Promise<NatsKeyValue<T>>;
  }

  status(): BusStatus {
    return this.#status;
  }

  onStatus(listener: (status: BusStatus) => void): Unsubscribe {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#status === 'closed') return;
    this.#status = 'closed';
    this.#listeners.clear();
    for (const store of await Promise.allSettled(this.#stores.values())) {
      if (store.status === 'fulfilled') store.value.closeWatches();
    }
    await this.nc.drain().catch(() => this.nc.close());
  }
}
