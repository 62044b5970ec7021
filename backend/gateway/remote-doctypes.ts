import type { DocTypeField } from '../../src/contract/doctype';
import type { ServiceMetadata } from '../../src/protocol';
import type { Logger } from '../context';
import type { ServiceDirectory } from './service-directory';

/** Options of {@link RemoteDocTypes}. */
export interface RemoteDocTypesOptions {
  /** The gateway's internal directory (services' own `metaUrl`s). */
  directory: Pick<ServiceDirectory, 'list' | 'subscribe'>;
  /** Deadline of one metadata fetch. */
  timeoutMs: number;
  log: Logger;
  fetch?: typeof fetch;
}

/**
 * The DocTypes of the services behind a MACROSERVICE gateway, for the gateway's encryption policy:
 * metadata mode must refuse plaintext for a DocType with `encrypted`/`pii` fields
 * (docs/security.md#the-server-enforces-the-mode) even though the gateway installs no apps. Each service's
 * metadata (`metaUrl`) is fetched when it appears or its `rev` changes; answers come from memory. Until a
 * service's metadata has loaded, its DocTypes are unknown to the policy (plaintext accepted) and a failed
 * fetch is retried on the next directory change or `refresh`.
 */
export class RemoteDocTypes {
  readonly #options: RemoteDocTypesOptions;
  readonly #byService = new Map<string, { rev: number; doctypes: Map<string, { fields: DocTypeField[] }> }>();
  #off: (() => void) | undefined;

  constructor(options: RemoteDocTypesOptions) {
    this.#options = options;
  }

  /** Loads every known service's metadata and follows directory changes. */
  async start(): Promise<void> {
    this.#off = this.#options.directory.subscribe(() => void this.refresh());
    await this.refresh();
  }

  /** Fetches metadata of services that are new or changed; forgets services that left. */
  async refresh(): Promise<void> {
    const manifests = this.#options.directory.list();
    const live = new Set(manifests.map((m) => m.service));
    for (const service of this.#byService.keys()) if (!live.has(service)) this.#byService.delete(service);
    await Promise.all(
      manifests
        .filter((m) => this.#byService.get(m.service)?.rev !== m.rev)
        .map(async (m) => {
          try {
            const res = await (this.#options.fetch ?? fetch)(m.metaUrl, {
              signal: AbortSignal.timeout(this.#options.timeoutMs),
              redirect: 'error',
            });
            if (!res.ok) throw new Error(`status ${res.status}`);
            const meta = (await res.json()) as ServiceMetadata;
            const doctypes = new Map<string, { fields: DocTypeField[] }>();
            for (const d of Array.isArray(meta?.doctypes) ? meta.doctypes : []) {
              if (typeof d?.name === 'string' && Array.isArray(d.fields))
                doctypes.set(d.name, { fields: d.fields });
            }
            this.#byService.set(m.service, { rev: m.rev, doctypes });
          } catch (err) {
            this.#options.log(`gateway: metadata of ${m.service} unavailable (${(err as Error).message})`);
          }
        }),
    );
  }

  /** The DocType's fields (DocTypeLookup of the encryption policy). */
  get(name: string): { fields: DocTypeField[] } | undefined {
    for (const entry of this.#byService.values()) {
      const found = entry.doctypes.get(name);
      if (found) return found;
    }
    return undefined;
  }

  stop(): void {
    this.#off?.();
  }
}
