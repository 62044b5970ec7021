import type { DocTypeField } from '../../src/contract/doctype';
import type { ServiceMetadata } from '../../src/protocol';
import type { Logger } from '../context';
import { ManifestFollower } from './manifest-follower';
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
  readonly #follower: ManifestFollower<Map<string, { fields: DocTypeField[] }>>;

  constructor(options: RemoteDocTypesOptions) {
    this.#follower = new ManifestFollower({
      directory: options.directory,
      what: 'metadata',
      log: options.log,
      forgetGone: true,
      load: async (m) => {
        const res = await (options.fetch ?? fetch)(m.metaUrl, {
          signal: AbortSignal.timeout(options.timeoutMs),
          redirect: 'error',
        });
        if (!res.ok) throw new Error(`status ${res.status}`);
        const meta = (await res.json()) as ServiceMetadata;
        const doctypes = new Map<string, { fields: DocTypeField[] }>();
        for (const d of Array.isArray(meta?.doctypes) ? meta.doctypes : []) {
          if (typeof d?.name === 'string' && Array.isArray(d.fields))
            doctypes.set(d.name, { fields: d.fields });
        }
        return doctypes;
      },
    });
  }

  /** Loads every known service's metadata and follows directory changes. */
  start(): Promise<void> {
    return this.#follower.start();
  }

  /** Fetches metadata of services that are new or changed; forgets services that left. */
  refresh(): Promise<void> {
    return this.#follower.refresh();
  }

  /** The DocType's fields (DocTypeLookup of the encryption policy). */
  get(name: string): { fields: DocTypeField[] } | undefined {
    for (const doctypes of this.#follower.values()) {
      const found = doctypes.get(name);
      if (found) return found;
    }
    return undefined;
  }

  /** Stops following the directory. */
  stop(): void {
    this.#follower.stop();
  }
}
