import { signInternalRequest } from '../auth/internal-auth';
import { ManifestFollower } from '../gateway/manifest-follower';
import type { ServiceDirectory } from '../gateway/service-directory';
import { RELEASE_CONTRACT_PATH } from './contract-route';
import { type ContractFingerprint, ContractFingerprintSchema } from './fingerprint';

/** Options of {@link RemoteContracts}. */
export interface RemoteContractsOptions {
  /** The gateway's internal directory (the services' own `apiUrl`s). */
  directory: Pick<ServiceDirectory, 'list' | 'subscribe'>;
  /** The secret shared with services (`PLATFORM_INTERNAL_SECRET`). */
  secret: string;
  /** Deadline of one service's answer. */
  timeoutMs: number;
  log: (line: string) => void;
  fetch?: typeof fetch;
}

/**
 * The contracts the services behind a MACROSERVICE gateway run with, for the releases' contract gate
 * (docs/mfe-teams.md#the-contract-gate): each service's fingerprint is asked for (signed
 * `GET <apiUrl>/release-contract`) when it appears or its manifest `rev` changes (a restart with another
 * backend is a new manifest), and answered from memory. A service not reachable, or whose answer has not
 * arrived, is unknown: its releases cannot be promoted until it answers once.
 */
export class RemoteContracts {
  readonly #follower: ManifestFollower<ContractFingerprint>;

  constructor(options: RemoteContractsOptions) {
    // A service that left keeps its last contract: its releases stay listed while it is down, and discovery
    // says it is not available.
    this.#follower = new ManifestFollower({
      directory: options.directory,
      what: 'contract',
      log: options.log,
      forgetGone: false,
      load: async (m) => {
        const url = new URL(`${new URL(m.apiUrl).origin}${RELEASE_CONTRACT_PATH}`);
        const headers = signInternalRequest(options.secret, {
          method: 'GET',
          target: url.pathname,
          body: '',
        });
        const res = await (options.fetch ?? fetch)(url, {
          headers,
          signal: AbortSignal.timeout(options.timeoutMs),
          redirect: 'error',
        });
        if (!res.ok) throw new Error(`status ${res.status}`);
        const { data } = (await res.json()) as { data: unknown };
        return ContractFingerprintSchema.parse(data);
      },
    });
  }

  /** Asks every known service and follows directory changes. */
  start(): Promise<void> {
    return this.#follower.start();
  }

  /** Asks the services that are new or changed. */
  refresh(): Promise<void> {
    return this.#follower.refresh();
  }

  /** The contract a service runs with now; undefined for a service not known (or not answering) yet. */
  running(service: string): ContractFingerprint | undefined {
    return this.#follower.get(service);
  }

  /** Stops following the directory. */
  stop(): void {
    this.#follower.stop();
  }
}
