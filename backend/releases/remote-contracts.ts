import { signInternalRequest } from '../auth/internal-auth';
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
  readonly #options: RemoteContractsOptions;
  readonly #byService = new Map<string, { rev: number; fingerprint: ContractFingerprint }>();
  #off: (() => void) | undefined;

  constructor(options: RemoteContractsOptions) {
    this.#options = options;
  }

  /** Asks every known service and follows directory changes. */
  async start(): Promise<void> {
    this.#off = this.#options.directory.subscribe(() => void this.refresh());
    await this.refresh();
  }

  /**
   * Asks the services that are new or changed. A service that left keeps its last contract: its releases
   * stay listed while it is down, and discovery says it is not available.
   */
  async refresh(): Promise<void> {
    const manifests = this.#options.directory.list();
    await Promise.all(
      manifests
        .filter((m) => this.#byService.get(m.service)?.rev !== m.rev)
        .map(async (m) => {
          const url = new URL(`${new URL(m.apiUrl).origin}${RELEASE_CONTRACT_PATH}`);
          const headers = signInternalRequest(this.#options.secret, {
            method: 'GET',
            target: url.pathname,
            body: '',
          });
          try {
            const res = await (this.#options.fetch ?? fetch)(url, {
              headers,
              signal: AbortSignal.timeout(this.#options.timeoutMs),
              redirect: 'error',
            });
            if (!res.ok) throw new Error(`status ${res.status}`);
            const { data } = (await res.json()) as { data: unknown };
            this.#byService.set(m.service, {
              rev: m.rev,
              fingerprint: ContractFingerprintSchema.parse(data),
            });
          } catch (err) {
            this.#options.log(`gateway: contract of ${m.service} unavailable (${(err as Error).message})`);
          }
        }),
    );
  }

  /** The contract a service runs with now; undefined for a service not known (or not answering) yet. */
  running(service: string): ContractFingerprint | undefined {
    return this.#byService.get(service)?.fingerprint;
  }

  stop(): void {
    this.#off?.();
  }
}
