import type { ServiceManifest } from '../../../src/protocol';
import { type Bus, type KeyValueStore, SCHEMA_DISCOVERY_SUBJECT, type Unsubscribe } from '../../bus/bus';
import type { Logger } from '../../context';
import { parseManifest, sameManifest } from './manifest-schema';
import { schemaBroadcast } from './schema-broadcast';

/** A manifest before the publisher has given it a revision. */
export type ManifestDraft = Omit<ServiceManifest, 'rev'>;

/** Options of {@link ManifestPublisher}. */
export interface ManifestPublisherOptions {
  bus: Bus;
  /** The manifest bucket (`nats.bucket`, TTL `nats.ttl_seconds`). */
  store: KeyValueStore<ServiceManifest>;
  /** Re-put interval (`nats.heartbeat_seconds`); must be well inside the bucket TTL. */
  heartbeatMs: number;
  log: Logger;
  /** Also publish the legacy `schema.broadcast` at start and on change (default true). */
  broadcast?: boolean;
  now?: () => number;
}

/**
 * The service side of MACROSERVICE discovery: keeps this service's manifest alive in the KV bucket
 * (key = service name) by re-putting it every heartbeat, so a killed process vanishes when the bucket TTL
 * expires, and deletes it on clean shutdown. Publishes the legacy broadcast at start.
 *
 * Revisions: a manifest identical to the one already in the bucket keeps its `rev` (a restart does not make
 * every client refetch); a changed one gets `max(previous + 1, now in ms)`, so a rev never goes back
 * even when the previous entry expired while the service was down (milliseconds, as the MONOLITH directory).
 */
export class ManifestPublisher {
  readonly #options: ManifestPublisherOptions;
  #manifest: ServiceManifest | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #offStatus: Unsubscribe | undefined;
  #failing = false;
  /** Beats started so far, and the newest one whose outcome has been taken into account. */
  #beats = 0;
  #settled = 0;

  constructor(options: ManifestPublisherOptions) {
    this.#options = options;
  }

  /** The manifest being published, with its revision. */
  get manifest(): ServiceManifest | undefined {
    return this.#manifest;
  }

  /** Publishes `draft` and starts the heartbeat; resolves once the first put is stored. */
  async start(draft: ManifestDraft): Promise<ServiceManifest> {
    const manifest = await this.#publish(draft);
    this.#timer = setInterval(() => void this.#heartbeat(), this.#options.heartbeatMs);
    this.#timer.unref?.();
    // A reconnect re-puts at once: the bucket may have lost the key while the link was down.
    this.#offStatus = this.#options.bus.onStatus((status) => {
      if (status === 'connected') void this.#heartbeat();
    });
    return manifest;
  }

  /** Replaces the manifest (e.g. a new DocType or remote URL): a new `rev`, stored and broadcast at once. */
  async update(draft: ManifestDraft): Promise<ServiceManifest> {
    return this.#publish(draft);
  }

  /** Stops the heartbeat and deletes the key, so gateways drop the service at once (clean shutdown). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#offStatus?.();
    this.#timer = undefined;
    const service = this.#manifest?.service;
    if (service) await this.#options.store.delete(service).catch(() => {});
  }

  async #publish(draft: ManifestDraft): Promise<ServiceManifest> {
    const { store, bus, broadcast = true } = this.#options;
    const now = this.#options.now ?? Date.now;
    const stored = await store.get(draft.service);
    const previous = (stored && parseManifest(stored.value)) ?? this.#manifest;
    const candidate: ServiceManifest = { ...draft, rev: previous?.rev ?? 0 };
    const rev =
      previous && sameManifest(previous, candidate)
        ? previous.rev
        : Math.max((previous?.rev ?? 0) + 1, Math.floor(now()));
    const manifest: ServiceManifest = { ...draft, rev };
    this.#manifest = manifest;
    await store.put(manifest.service, manifest);
    if (broadcast) await bus.publish(SCHEMA_DISCOVERY_SUBJECT, schemaBroadcast(manifest, now()));
    return manifest;
  }

  /**
   * One beat. Beats do not wait for each other (a put sent while NATS is away only fails at its timeout,
   * several beats later, and the reconnect must not wait for it), so each carries a number and only the
   * outcome of a beat newer than the last one settled counts: a stale put failing after a newer one succeeded
   * is not a new outage. A failure is logged once per outage and the recovery once.
   */
  async #heartbeat(): Promise<void> {
    const manifest = this.#manifest;
    if (!manifest || !this.#timer) return;
    const beat = ++this.#beats;
    let error: Error | undefined;
    try {
      await this.#options.store.put(manifest.service, manifest);
    } catch (err) {
      error = err as Error;
    }
    if (beat < this.#settled) return;
    this.#settled = beat;
    if (error && !this.#failing) {
      this.#options.log(`bus: manifest heartbeat of ${manifest.service} failed (${error.message})`);
    } else if (!error && this.#failing) {
      this.#options.log(`bus: manifest heartbeat of ${manifest.service} resumed`);
    }
    this.#failing = error !== undefined;
  }
}
