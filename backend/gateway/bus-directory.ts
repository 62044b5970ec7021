import type { ServiceManifest } from '../../src/protocol';
import {
  type Bus,
  type KeyValueStore,
  type KvEntry,
  SCHEMA_DISCOVERY_SUBJECT,
  type Unsubscribe,
} from '../bus/bus';
import type { Logger } from '../context';
import { parseManifest, sameManifest } from './manifests/manifest-schema';
import { manifestFromBroadcast } from './manifests/schema-broadcast';
import type { DirectoryListener, ServiceDirectory } from './service-directory';

/** Options of {@link BusServiceDirectory}. */
export interface BusServiceDirectoryOptions {
  bus: Bus;
  /** The manifest bucket, one key per service. */
  store: KeyValueStore<unknown>;
  /** Bucket TTL: a manifest not re-put within it is gone (expired locally; nats-server 2.9 reports nothing). */
  ttlMs: number;
  /** Service heartbeat interval; the local expiry sweep runs twice per heartbeat. */
  heartbeatMs: number;
  /** `nats.bus_source_of_truth`: also believe the legacy `schema.broadcast` events. */
  busSourceOfTruth: boolean;
  log: Logger;
  now?: () => number;
}

interface Held {
  manifest: ServiceManifest;
  /** KV revision of the value, to ignore a stale event arriving after a newer one. */
  revision: number;
  /** Last time a heartbeat (put) of this key was seen, on this process's clock. */
  seenAt: number;
}

/**
 * The MACROSERVICE {@link ServiceDirectory}: an in-memory mirror of the manifest bucket, so the JIT Oracle
 * answers from memory. It watches the bucket (a new, changed or deleted key is seen at once), expires a key
 * whose last heartbeat is older than the TTL (a SIGKILLed service), and with `busSourceOfTruth` also learns
 * services from the legacy broadcast.
 *
 * Resilience: while the bus is disconnected nothing expires (the last known manifests keep being served);
 * on reconnect every held entry gets a fresh TTL and the watch resyncs from a snapshot, after which a service
 * that no longer heartbeats expires normally. A snapshot only adds and refreshes: a key missing from it (NATS
 * came back with an empty store, the services have not re-put yet) is kept until its TTL passes without a
 * heartbeat, and the heartbeats into the new bucket, whose revisions start again at 1, keep it alive.
 *
 * Broadcast-only services never heartbeat, so they do not expire; they are replaced by a newer broadcast and
 * dropped when a KV delete for the same service is seen (the service shut down cleanly). A KV manifest wins
 * over a broadcast one for the same service.
 */
export class BusServiceDirectory implements ServiceDirectory {
  readonly #options: BusServiceDirectoryOptions;
  readonly #now: () => number;
  readonly #fromKv = new Map<string, Held>();
  readonly #fromBroadcast = new Map<string, ServiceManifest>();
  readonly #listeners = new Set<DirectoryListener>();
  readonly #cleanups: Unsubscribe[] = [];
  readonly #invalidKeys = new Set<string>();
  #sorted: ServiceManifest[] = [];
  #owners = new Map<string, string>();

  constructor(options: BusServiceDirectoryOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Loads the current bucket content and starts watching; resolves once the directory is populated. */
  async start(): Promise<void> {
    const { bus, store, heartbeatMs, busSourceOfTruth } = this.#options;
    if (busSourceOfTruth) {
      this.#cleanups.push(bus.subscribe(SCHEMA_DISCOVERY_SUBJECT, (data) => this.#onBroadcast(data)));
    }
    this.#cleanups.push(
      bus.onStatus((status) => {
        if (status !== 'connected') return;
        const now = this.#now();
        for (const held of this.#fromKv.values()) held.seenAt = now;
      }),
    );
    this.#cleanups.push(
      await store.watch((event) => {
        if (event.type === 'snapshot') for (const entry of event.entries) this.#onPut(entry, true);
        else if (event.type === 'put') this.#onPut(event.entry, false);
        else this.#onDelete(event.key);
      }),
    );
    const sweep = setInterval(() => this.sweep(), Math.max(50, Math.floor(heartbeatMs / 2)));
    sweep.unref?.();
    this.#cleanups.push(() => clearInterval(sweep));
  }

  /** Drops manifests whose last heartbeat is older than the TTL (skipped while the bus is disconnected). */
  sweep(): void {
    if (this.#options.bus.status() !== 'connected') return;
    const cutoff = this.#now() - this.#options.ttlMs;
    let changed = false;
    for (const [service, held] of this.#fromKv) {
      if (held.seenAt < cutoff) {
        this.#fromKv.delete(service);
        this.#options.log(`directory: ${service} expired (no heartbeat for ${this.#options.ttlMs} ms)`);
        changed = true;
      }
    }
    if (changed) this.#rebuild();
  }

  /** Stops watching; the last state stays readable. */
  async close(): Promise<void> {
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
    this.#listeners.clear();
  }

  list(): ServiceManifest[] {
    return [...this.#sorted];
  }

  get(service: string): ServiceManifest | undefined {
    return this.#fromKv.get(service)?.manifest ?? this.#fromBroadcast.get(service);
  }

  ownerOf(doctype: string): string | undefined {
    return this.#owners.get(doctype);
  }

  subscribe(listener: DirectoryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #onPut(entry: KvEntry<unknown>, fromSnapshot: boolean): void {
    const manifest = parseManifest(entry.value);
    if (!manifest || manifest.service !== entry.key) {
      // Logged once per key, not on every heartbeat of a misconfigured publisher.
      if (!this.#invalidKeys.has(entry.key)) {
        this.#invalidKeys.add(entry.key);
        this.#options.log(`directory: ignored an invalid manifest under key ${JSON.stringify(entry.key)}`);
      }
      return;
    }
    this.#invalidKeys.delete(entry.key);
    const held = this.#fromKv.get(manifest.service);
    const now = this.#now();
    // A snapshot entry was last written at `created`; a live event was written just now.
    const seenAt = fromSnapshot ? Math.min(now, entry.created.getTime()) : now;
    if (fromSnapshot && held && held.revision > entry.revision) {
      // A snapshot read while newer events already arrived: it is older than what is held. Only a put (a
      // heartbeat) was seen, which keeps the service alive.
      held.seenAt = Math.max(held.seenAt, seenAt);
      return;
    }
    // A live event is always the latest write of its key: one watch reports a key's writes in order. A lower
    // revision than the one held means NATS lost its store and the bucket's new stream counts from 1 again;
    // ignoring those heartbeats would expire a live service (docs/operators.md#resilience).
    const changed = !held || held.manifest.rev !== manifest.rev || !sameManifest(held.manifest, manifest);
    this.#fromKv.set(manifest.service, {
      manifest,
      revision: entry.revision,
      seenAt: Math.max(seenAt, held?.seenAt ?? 0),
    });
    if (changed) this.#rebuild();
  }

  /** A live delete: the latest write of the key (see #onPut), whatever its revision. */
  #onDelete(service: string): void {
    const had = this.#fromKv.delete(service) || this.#fromBroadcast.has(service);
    this.#fromBroadcast.delete(service);
    if (had) this.#rebuild();
  }

  #onBroadcast(data: unknown): void {
    const manifest = manifestFromBroadcast(data);
    if (!manifest) return;
    const held = this.#fromBroadcast.get(manifest.service);
    if (held && held.rev > manifest.rev) return;
    if (held && held.rev === manifest.rev && sameManifest(held, manifest)) return;
    this.#fromBroadcast.set(manifest.service, manifest);
    this.#rebuild();
  }

  #rebuild(): void {
    const merged = new Map(this.#fromBroadcast);
    for (const [service, held] of this.#fromKv) merged.set(service, held.manifest);
    this.#sorted = [...merged.values()].sort((a, b) => a.service.localeCompare(b.service));
    const owners = new Map<string, string>();
    for (const m of this.#sorted) for (const d of m.doctypes) if (!owners.has(d)) owners.set(d, m.service);
    this.#owners = owners;
    const snapshot = this.list();
    for (const listener of [...this.#listeners]) listener(snapshot);
  }
}
