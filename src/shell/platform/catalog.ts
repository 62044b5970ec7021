/**
 * The Desk's catalog of services and their DocTypes, behind the sidebar and every DocType screen. Services
 * come from two sources, merged: `GET <gateway>/api/gateway/remotes` (services that ship a UI remote) and the
 * manifests prewarmed for `coreServices` (which include data-only services). Each service's metadata
 * (`metaUrl`) loads independently, so one failing service degrades only its own entries.
 */
import type { DocTypeSchema, ServiceMetadata } from '../../protocol';
import {
  REMOTES_PATH,
  type RemotesMap,
  SERVICES_PATH,
  type ServiceManifest,
  type ServicesMap,
} from '../../protocol';
import { KeyedStore, type LoadState } from './keyed-store';

/** Where a service lives, whichever source told us. */
export interface ServiceEntry {
  service: string;
  /** URL of its `remoteEntry.js`, or null for a data-only service. */
  url: string | null;
  apiUrl: string;
  metaUrl: string;
  /** SRI hash of `url`, when the service published one. */
  integrity?: string;
}

/** Immutable snapshot of the catalog. */
export interface CatalogSnapshot {
  /** State of the gateway's remotes map. */
  remotes: LoadState<RemotesMap> | { status: 'idle' };
  /** Known services by name, in the order they became known. */
  services: Readonly<Record<string, ServiceEntry>>;
  /** Metadata state per service. */
  metadata: Readonly<Record<string, LoadState<ServiceMetadata>>>;
}

/** Options of {@link DeskCatalog}. */
export interface DeskCatalogOptions {
  /** Base URL of the gateway (`__PLATFORM_CONFIG__.gatewayUrl`). */
  gatewayUrl: string;
  /** Fetches `GET /api/gateway/remotes`. */
  fetchRemotes(url: string): Promise<RemotesMap>;
  /**
   * Fetches `GET /api/gateway/services` (every registered service, with or without a UI remote), so the
   * navigation lists data-only services that are not prewarmed too. Optional: without it, only the remotes
   * map and the prewarmed services are known.
   */
  fetchServices?(url: string): Promise<ServicesMap>;
  /** Fetches a service's metadata from its `metaUrl` (the SDK's `fetchServiceMetadata`). */
  fetchMetadata(metaUrl: string): Promise<ServiceMetadata>;
  /**
   * Whether metadata may be fetched now (default always). Metadata needs a session: while signed out the
   * catalog only records services, and {@link DeskCatalog.loadPendingMetadata} loads them after sign-in.
   */
  canLoadMetadata?(): boolean;
}

/** Services, their metadata, and a DocType lookup over them. */
export class DeskCatalog {
  readonly #metadata: KeyedStore<ServiceMetadata>;
  readonly #remotes: KeyedStore<RemotesMap>;
  #services: Record<string, ServiceEntry> = {};
  #snapshot: CatalogSnapshot | undefined;
  readonly #listeners = new Set<() => void>();
  readonly #canLoadMetadata: () => boolean;
  /** Per service, the highest manifest rev seen (see {@link DeskCatalog.noteManifest}). */
  readonly #revs = new Map<string, number>();

  readonly #fetchServices: DeskCatalogOptions['fetchServices'];
  readonly #gatewayUrl: string;

  constructor(options: DeskCatalogOptions) {
    this.#fetchServices = options.fetchServices;
    this.#gatewayUrl = options.gatewayUrl;
    this.#canLoadMetadata = options.canLoadMetadata ?? (() => true);
    this.#metadata = new KeyedStore((service) => {
      const entry = this.#services[service];
      if (!entry) return Promise.reject(new Error(`Unknown service ${service}`));
      return options.fetchMetadata(entry.metaUrl);
    });
    this.#remotes = new KeyedStore(() => options.fetchRemotes(`${options.gatewayUrl}${REMOTES_PATH}`));
    this.#metadata.subscribe(() => this.#changed());
    this.#remotes.subscribe(() => this.#changed());
  }

  /** Loads the remotes map and the metadata of every service in it. Failures stay in the snapshot. */
  async loadRemotes(): Promise<void> {
    const listing = this.#fetchServices?.(`${this.#gatewayUrl}${SERVICES_PATH}`).then(
      (services) =>
        // Settles once every listed service's metadata did (or could not yet: signed out).
        Promise.all(
          Object.entries(services).map(([service, unit]) =>
            this.addService({ service, ...unit }).catch(() => undefined),
          ),
        ).then(() => undefined),
      () => {}, // best effort: the remotes map and the prewarmed services still fill the navigation
    );
    try {
      const map = await this.#remotes.load('remotes');
      for (const [service, unit] of Object.entries(map)) {
        this.addService({
          service,
          url: unit.url,
          apiUrl: unit.apiUrl,
          metaUrl: unit.metaUrl,
          ...(unit.integrity ? { integrity: unit.integrity } : {}),
        });
      }
    } catch {
      // Recorded in the snapshot; the sidebar shows it with a retry.
    }
    await listing;
  }

  /** Retries the remotes map. */
  retryRemotes(): Promise<void> {
    return this.#remotes.retry('remotes').then(
      () => this.loadRemotes(),
      () => {},
    );
  }

  /**
   * Adds (or updates) a service from a manifest and loads its metadata; resolves when the metadata is in, or
   * with undefined at once when metadata cannot be loaded yet (signed out).
   */
  addManifest(manifest: ServiceManifest): Promise<ServiceMetadata | undefined> {
    this.#revs.set(manifest.service, Math.max(manifest.rev, this.#revs.get(manifest.service) ?? 0));
    return this.addService({
      service: manifest.service,
      url: manifest.url,
      apiUrl: manifest.apiUrl,
      metaUrl: manifest.metaUrl,
      ...(manifest.integrity ? { integrity: manifest.integrity } : {}),
    });
  }

  /** Adds a service and loads its metadata (once); resolves with the metadata (undefined while signed out). */
  addService(entry: ServiceEntry): Promise<ServiceMetadata | undefined> {
    const known = this.#services[entry.service];
    if (
      !known ||
      known.url !== entry.url ||
      known.metaUrl !== entry.metaUrl ||
      known.apiUrl !== entry.apiUrl ||
      // The remote entry's hash arrives with the remotes map even when the service listing came first.
      (entry.integrity !== undefined && known.integrity !== entry.integrity)
    ) {
      this.#services = {
        ...this.#services,
        [entry.service]: { ...known, ...entry, url: entry.url ?? known?.url ?? null },
      };
      this.#changed();
    }
    if (!this.#canLoadMetadata()) return Promise.resolve(undefined);
    return this.#metadata.load(entry.service);
  }

  /**
   * Takes note of a service's manifest as discovery now holds it: when its rev is above the one the catalog
   * saw, the service changed (a DocType added or changed), so its loaded metadata is fetched again, the
   * old one shown meanwhile. The first manifest seen of a service only sets the rev.
   */
  noteManifest(manifest: ServiceManifest): void {
    const seen = this.#revs.get(manifest.service);
    if (seen !== undefined && manifest.rev <= seen) return;
    this.#revs.set(manifest.service, manifest.rev);
    if (seen !== undefined && this.#metadata.get(manifest.service)?.status === 'ready') {
      this.#metadata.refresh(manifest.service).catch(() => {});
    }
  }

  /** Retries one service's metadata. */
  retryMetadata(service: string): Promise<ServiceMetadata> {
    return this.#metadata.retry(service);
  }

  /**
   * Loads the metadata of every service recorded while signed out and retries every one that failed (after
   * a sign-in: metadata needs a session). Services already loaded or loading are left alone.
   */
  loadPendingMetadata(): Promise<void> {
    const states = this.#metadata.getSnapshot();
    const pending = Object.keys(this.#services)
      .filter((service) => states[service] === undefined || states[service].status === 'error')
      .map((service) => this.#metadata.retry(service).catch(() => undefined));
    return Promise.all(pending).then(() => undefined);
  }

  /** The schema of `docType` when its service's metadata is loaded. */
  findDocType(docType: string): { service: string; schema: DocTypeSchema } | undefined {
    const states = this.#metadata.getSnapshot();
    for (const [service, state] of Object.entries(states)) {
      if (state.status !== 'ready') continue;
      const schema = state.value.doctypes.find((d) => d.name === docType);
      if (schema) return { service, schema };
    }
    return undefined;
  }

  /** Subscribes to changes (for `useSyncExternalStore`). */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  /** The current snapshot (same object until something changes). */
  getSnapshot = (): CatalogSnapshot => {
    this.#snapshot ??= {
      remotes: this.#remotes.get('remotes') ?? { status: 'idle' },
      services: this.#services,
      metadata: this.#metadata.getSnapshot(),
    };
    return this.#snapshot;
  };

  #changed(): void {
    this.#snapshot = undefined;
    for (const listener of [...this.#listeners]) listener();
  }
}
