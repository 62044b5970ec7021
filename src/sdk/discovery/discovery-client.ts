/**
 * The DiscoveryClient of docs/sdk.md#discovery. Resolving a DocType's owner goes through four steps:
 * 1. the PluginRegistry cache;
 * 2. on a miss, the pending queue: every lookup issued in the same tick (the injectable `schedule`, default
 *    `queueMicrotask`) joins one batch, and a lookup already in flight shares that request;
 * 3. one `POST /api/gateway/discovery/query` per batch, carrying the manifest `rev` held per service
 *    (docs/http-api.md#gateway-discovery: the gateway sends a manifest only when its rev is newer);
 * 4. hydration of the PluginRegistry and of the manifest cache from the answer.
 * A failed batch rejects only its own callers with a coded error and writes nothing, so a retry starts clean.
 */

import type { DiscoveryQuery, DiscoveryResult, RemoteEntries, ServiceManifest } from '../../protocol';
import { SdkError } from '../errors';
import { Hooks } from '../hooks';
import { tryReadPlatformConfig } from '../platform-config';
import { SnapshotStore } from '../store';
import { PluginRegistry } from './plugin-registry';
import { postDiscoveryQuery } from './transport';

/** Options of {@link DiscoveryClient}; everything environmental is injectable. */
export interface DiscoveryClientOptions {
  /**
   * Base URL of the gateway. Default: `__PLATFORM_CONFIG__.gatewayUrl` when the page has one, else `''`
   * (same origin).
   */
  gatewayUrl?: string;
  /** Fetch implementation; default the global `fetch`, looked up at call time. */
  fetch?: typeof globalThis.fetch;
  /** Schedules a batch's flush; default `queueMicrotask` (one batch per tick). */
  schedule?: (flush: () => void) => void;
  /** Timeout of one discovery request; default 10 s. */
  timeoutMs?: number;
  /** Lifetime of cached owners and manifests; default 5 minutes. */
  maxAgeMs?: number;
  /** Most resources in one request (the gateway's `max_resources`); larger batches are split. Default 500. */
  maxBatchSize?: number;
  /** Clock; default `Date.now`. */
  now?: () => number;
}

/** Payloads of the client's lifecycle hooks. */
export interface DiscoveryHookEvents {
  [event: string]: unknown;
  /** A batch is about to be sent. */
  beforeQuery: { query: DiscoveryQuery };
  /** A batch was answered and hydrated. */
  afterQuery: { query: DiscoveryQuery; result: DiscoveryResult };
  /** A batch failed; its callers are rejected with `error`. */
  queryError: { query: DiscoveryQuery; error: SdkError };
}

/** Outcome of prewarming one service. */
export type PrewarmOutcome =
  | { service: string; status: 'fulfilled'; manifest: ServiceManifest }
  | { service: string; status: 'rejected'; error: unknown };

/** What {@link DiscoveryClient.prewarm} reports: one outcome per service, in the order asked. */
export type PrewarmReport = PrewarmOutcome[];

/** A per-service warmer run after the manifest arrived (e.g. a remote preload). */
export type ServiceWarmer = (service: string, manifest: ServiceManifest) => unknown;

/** Options of {@link DiscoveryClient.prewarm}. */
export interface PrewarmOptions {
  /** Warmers run for each service once its manifest is known; a warmer's failure fails that service only. */
  warmers?: ServiceWarmer[];
}

/** Immutable view of the client's state for `useSyncExternalStore`; a new object after every change. */
export interface DiscoverySnapshot {
  readonly owners: Readonly<Record<string, string>>;
  readonly manifests: Readonly<Record<string, ServiceManifest>>;
  /** Lookups queued or in flight. */
  readonly pending: number;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Shape of a full DocType name, `<app>.<DocType>` (the gateway answers 400 to anything else). */
const DOCTYPE_NAME = /^[a-z][a-z0-9_]{0,63}\.[A-Z][A-Za-z0-9]{0,63}$/;

const DEFAULTS = { timeoutMs: 10_000, maxAgeMs: 300_000, maxBatchSize: 500 };

/**
 * Resolves DocType owners and service manifests through the gateway, batched and cached.
 *
 * @example
 * const discovery = DiscoveryClient.get_instance({ gatewayUrl: config.gatewayUrl });
 * const owner = await discovery.resolve('crm.Customer'); // 'crm'
 * const { apiUrl } = discovery.getManifest(owner!)!;
 */
export class DiscoveryClient extends SnapshotStore<DiscoverySnapshot> {
  static #instance: DiscoveryClient | undefined;

  /** The shared client (named in docs/sdk.md#discovery); `options`, when given, reconfigure it. */
  static get_instance(options?: DiscoveryClientOptions): DiscoveryClient {
    DiscoveryClient.#instance ??= new DiscoveryClient();
    if (options) DiscoveryClient.#instance.configure(options);
    return DiscoveryClient.#instance;
  }

  /** camelCase alias of {@link DiscoveryClient.get_instance}. */
  static getInstance(options?: DiscoveryClientOptions): DiscoveryClient {
    return DiscoveryClient.get_instance(options);
  }

  /** Drops the shared client and its caches (docs/sdk.md#discovery: tests call it in `afterEach`). */
  static reset(): void {
    DiscoveryClient.#instance?.clear();
    DiscoveryClient.#instance = undefined;
  }

  /** DocType -> owner cache. */
  readonly registry: PluginRegistry;
  /** Lifecycle hooks: `beforeQuery`, `afterQuery`, `queryError`. */
  readonly hooks = new Hooks<DiscoveryHookEvents>();

  #options: Required<Omit<DiscoveryClientOptions, 'fetch' | 'schedule' | 'gatewayUrl'>> &
    Pick<DiscoveryClientOptions, 'fetch' | 'schedule' | 'gatewayUrl'>;
  readonly #manifests = new Map<string, { manifest: ServiceManifest; fetchedAt: number }>();
  #queuedResources = new Map<string, Deferred<string | null>>();
  #queuedServices = new Map<string, Deferred<ServiceManifest>>();
  readonly #inflightResources = new Map<string, Promise<string | null>>();
  readonly #inflightServices = new Map<string, Promise<ServiceManifest>>();
  /** A revalidation waiting for the next batch: that batch asks for the remotes' entries too. */
  #queuedRevalidation: Deferred<RemoteEntries | undefined> | undefined;
  /** The revalidation queued or in flight, which a later one joins. */
  #revalidation: Promise<RemoteEntries | undefined> | undefined;
  #scheduled = false;
  #generation = 0;

  constructor(options: DiscoveryClientOptions = {}) {
    super();
    this.#options = { ...DEFAULTS, now: Date.now, ...options };
    this.registry = new PluginRegistry({ maxAgeMs: this.#options.maxAgeMs, now: () => this.#options.now() });
    this.registry.subscribe(() => this.notify());
  }

  /** Changes options; unspecified ones keep their value. */
  configure(options: DiscoveryClientOptions): void {
    this.#options = { ...this.#options, ...options };
    this.registry.maxAgeMs = this.#options.maxAgeMs;
  }

  /** Owner service of `docType`, or `null` when the gateway knows no owner (or the name is malformed). */
  resolve(docType: string): Promise<string | null> {
    if (typeof docType !== 'string' || !DOCTYPE_NAME.test(docType)) return Promise.resolve(null);
    const cached = this.registry.get(docType);
    if (cached !== undefined) return Promise.resolve(cached);
    const inflight = this.#inflightResources.get(docType) ?? this.#queuedResources.get(docType)?.promise;
    if (inflight) return inflight;
    const waiter = deferred<string | null>();
    this.#queuedResources.set(docType, waiter);
    this.#scheduleFlush();
    return waiter.promise;
  }

  /** Owners of several DocTypes (one request for all misses). */
  async resolveMany(docTypes: readonly string[]): Promise<Record<string, string | null>> {
    const owners = await Promise.all(docTypes.map((d) => this.resolve(d)));
    return Object.fromEntries(docTypes.map((d, i) => [d, owners[i] ?? null]));
  }

  /** The manifest held for `service` (hydrated by earlier queries), if any. */
  getManifest(service: string): ServiceManifest | undefined {
    return this.#manifests.get(service)?.manifest;
  }

  /** The manifest of `service`, fetched (batched) when none is held or it is older than `maxAgeMs`. */
  loadManifest(service: string): Promise<ServiceManifest> {
    const held = this.#manifests.get(service);
    if (held && held.fetchedAt + this.#options.maxAgeMs > this.#options.now()) {
      return Promise.resolve(held.manifest);
    }
    const inflight = this.#inflightServices.get(service) ?? this.#queuedServices.get(service)?.promise;
    if (inflight) return inflight;
    const waiter = deferred<ServiceManifest>();
    this.#queuedServices.set(service, waiter);
    this.#scheduleFlush();
    return waiter.promise;
  }

  /**
   * Asks the gateway, in one query carrying the held revs, whether any held manifest changed; the answer
   * brings only the changed ones, which replace the held ones (subscribers are notified). The Desk calls it
   * at each in-app navigation, so a service's new DocType shows without a reload.
   *
   * The same query asks for the remote entry of every service with a UI remote (`remotes: true`,
   * docs/http-api.md#gateway-discovery), which the revalidation resolves with: the Desk's offer of a new
   * release reads it, so a navigation costs one request. It resolves with undefined when the answer has no
   * entries (an older gateway; an anonymous answer while a canary or pin exists) or the query failed; it
   * never rejects. A revalidation asked while one is queued or in flight joins it.
   */
  revalidate(): Promise<RemoteEntries | undefined> {
    if (this.#revalidation) return this.#revalidation;
    for (const [name, held] of this.#manifests) {
      held.fetchedAt = Number.NEGATIVE_INFINITY;
      // A service the gateway no longer knows rejects its own lookup; the revalidation goes on.
      this.loadManifest(name).catch(() => {});
    }
    const waiter = deferred<RemoteEntries | undefined>();
    this.#queuedRevalidation = waiter;
    this.#scheduleFlush();
    const revalidation = waiter.promise.finally(() => {
      if (this.#revalidation === revalidation) this.#revalidation = undefined;
    });
    this.#revalidation = revalidation;
    return revalidation;
  }

  /**
   * Warms several services in parallel at bootstrap (`prewarm`, docs/sdk.md#discovery): their manifests come
   * in one discovery query, then each warmer runs per service. All-settled semantics: one service's failure
   * never aborts the others, and the report says which failed and why.
   */
  async prewarm(services: readonly string[], options: PrewarmOptions = {}): Promise<PrewarmReport> {
    const warmers = options.warmers ?? [];
    const settled = await Promise.allSettled(
      services.map(async (service) => {
        const manifest = await this.loadManifest(service);
        await Promise.all(warmers.map((warm) => warm(service, manifest)));
        return manifest;
      }),
    );
    return settled.map((outcome, i): PrewarmOutcome => {
      const service = services[i]!;
      return outcome.status === 'fulfilled'
        ? { service, status: 'fulfilled', manifest: outcome.value }
        : { service, status: 'rejected', error: outcome.reason };
    });
  }

  /** Owners, manifests and the pending count as they are now, frozen. */
  protected override createSnapshot(): DiscoverySnapshot {
    return Object.freeze({
      owners: Object.freeze(this.registry.toRecord()),
      manifests: Object.freeze(
        Object.fromEntries([...this.#manifests].map(([name, held]) => [name, held.manifest])),
      ),
      pending:
        this.#queuedResources.size +
        this.#queuedServices.size +
        this.#inflightResources.size +
        this.#inflightServices.size,
    });
  }

  /** Drops every cached owner and manifest; requests already sent can no longer hydrate this client. */
  clear(): void {
    this.#generation++;
    this.#manifests.clear();
    this.registry.clear();
    this.notify();
  }

  /** Subscribers hear of a batch once when it starts queueing and once when it is sent, not per lookup. */
  #scheduleFlush(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.notify();
    (this.#options.schedule ?? queueMicrotask)(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    const resources = [...this.#queuedResources];
    const services = [...this.#queuedServices];
    const revalidation = this.#queuedRevalidation;
    this.#queuedResources = new Map();
    this.#queuedServices = new Map();
    this.#queuedRevalidation = undefined;
    const size = this.#options.maxBatchSize;
    const chunks = Math.max(1, Math.ceil(resources.length / size));
    for (let i = 0; i < chunks; i++) {
      const first = i === 0;
      void this.#send(
        resources.slice(i * size, (i + 1) * size),
        first ? services : [],
        first ? revalidation : undefined,
      );
    }
    this.notify(); // `#send` registered the batch as in flight synchronously
  }

  /** Sends one batch; `revalidation`, when given, is resolved with the answer's remote entries. */
  async #send(
    resources: Array<[string, Deferred<string | null>]>,
    services: Array<[string, Deferred<ServiceManifest>]>,
    revalidation?: Deferred<RemoteEntries | undefined>,
  ): Promise<void> {
    for (const [docType, waiter] of resources) this.#inflightResources.set(docType, waiter.promise);
    for (const [service, waiter] of services) this.#inflightServices.set(service, waiter.promise);
    const query = this.#buildQuery(
      resources.map(([d]) => d),
      services.map(([s]) => s),
    );
    if (revalidation) query.remotes = true;
    const generation = this.#generation;
    try {
      this.hooks.emit('beforeQuery', { query });
      const result = await postDiscoveryQuery(
        {
          gatewayUrl: this.#options.gatewayUrl ?? tryReadPlatformConfig()?.gatewayUrl ?? '',
          fetch: this.#options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
          timeoutMs: this.#options.timeoutMs,
        },
        query,
      );
      if (generation === this.#generation) this.#hydrate(result);
      this.hooks.emit('afterQuery', { query, result });
      for (const [docType, waiter] of resources) waiter.resolve(result.resources[docType] ?? null);
      for (const [service, waiter] of services) {
        // Not in the answer but held: the held rev is still current, so it is fresh again.
        const held = this.#manifests.get(service);
        if (!result.services[service] && held && generation === this.#generation) {
          held.fetchedAt = this.#options.now();
        }
        const manifest = result.services[service] ?? held?.manifest;
        if (manifest) waiter.resolve(manifest);
        else waiter.reject(new SdkError('unknown_service', `The gateway knows no service "${service}".`));
      }
      revalidation?.resolve(result.remotes);
    } catch (err) {
      const error =
        err instanceof SdkError ? err : new SdkError('discovery_failed', 'Discovery failed.', { cause: err });
      this.hooks.emit('queryError', { query, error });
      for (const [, waiter] of resources) waiter.reject(error);
      for (const [, waiter] of services) waiter.reject(error);
      revalidation?.resolve(undefined);
    } finally {
      for (const [docType] of resources) this.#inflightResources.delete(docType);
      for (const [service] of services) this.#inflightServices.delete(service);
      this.notify();
    }
  }

  /**
   * `services` carries the rev held for every known service, and 0 for a service asked for the first time,
   * within the gateway's entry limit (the services asked for come first).
   */
  #buildQuery(resources: string[], services: string[]): DiscoveryQuery {
    const revs: Record<string, number> = {};
    let count = 0;
    for (const name of services) {
      revs[name] = this.#manifests.get(name)?.manifest.rev ?? 0;
      count++;
    }
    for (const [name, held] of this.#manifests) {
      if (count >= this.#options.maxBatchSize) break;
      if (Object.hasOwn(revs, name)) continue;
      revs[name] = held.manifest.rev;
      count++;
    }
    return count > 0 ? { resources, services: revs } : { resources };
  }

  #hydrate(result: DiscoveryResult): void {
    const now = this.#options.now();
    const owners: Array<[string, string]> = [];
    for (const [name, manifest] of Object.entries(result.services)) {
      const held = this.#manifests.get(name);
      if (held && held.manifest.rev > manifest.rev) continue;
      this.#manifests.set(name, { manifest, fetchedAt: now });
      for (const docType of manifest.doctypes) owners.push([docType, name]);
    }
    for (const [docType, owner] of Object.entries(result.resources)) {
      if (owner !== null) owners.push([docType, owner]);
    }
    this.registry.setMany(owners);
    this.notify();
  }
}
