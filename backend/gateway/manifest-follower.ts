import type { ServiceDirectory, ServiceManifest } from './service-directory';

/** Options of {@link ManifestFollower}. */
export interface ManifestFollowerOptions<T> {
  /** The gateway's internal directory. */
  directory: Pick<ServiceDirectory, 'list' | 'subscribe'>;
  /** What is kept of a service, read when it appears or its manifest `rev` changes. */
  load(manifest: ServiceManifest): Promise<T>;
  /** What `load` reads, for the log line of a failure (`contract`, `metadata`). */
  what: string;
  log: (line: string) => void;
  /** Whether a service that left the directory is forgotten; otherwise its last value stays. */
  forgetGone: boolean;
}

/**
 * Something a gateway keeps per service behind it (its metadata, its release contract), read from the
 * service when its manifest appears or its `rev` changes (a restart with another backend is a new manifest)
 * and answered from memory. A read that fails is left for the next directory change or {@link refresh}.
 */
export class ManifestFollower<T> {
  readonly #options: ManifestFollowerOptions<T>;
  readonly #byService = new Map<string, { rev: number; value: T }>();
  #off: (() => void) | undefined;

  constructor(options: ManifestFollowerOptions<T>) {
    this.#options = options;
  }

  /** Reads every known service and follows directory changes. */
  async start(): Promise<void> {
    this.#off = this.#options.directory.subscribe(() => void this.refresh());
    await this.refresh();
  }

  /** Reads the services that are new or changed (and forgets those that left, when asked to). */
  async refresh(): Promise<void> {
    const manifests = this.#options.directory.list();
    if (this.#options.forgetGone) {
      const live = new Set(manifests.map((m) => m.service));
      for (const service of this.#byService.keys()) if (!live.has(service)) this.#byService.delete(service);
    }
    await Promise.all(
      manifests
        .filter((m) => this.#byService.get(m.service)?.rev !== m.rev)
        .map(async (m) => {
          try {
            this.#byService.set(m.service, { rev: m.rev, value: await this.#options.load(m) });
          } catch (err) {
            this.#options.log(
              `gateway: ${this.#options.what} of ${m.service} unavailable (${(err as Error).message})`,
            );
          }
        }),
    );
  }

  /** The value kept for `service`; undefined for a service not read (or not answering) yet. */
  get(service: string): T | undefined {
    return this.#byService.get(service)?.value;
  }

  /** Every value kept. */
  values(): T[] {
    return [...this.#byService.values()].map((entry) => entry.value);
  }

  /** Stops following the directory. */
  stop(): void {
    this.#off?.();
  }
}
