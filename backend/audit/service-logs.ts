import type { ServiceManifest } from '../../src/protocol';
import type { AuditEntry } from '../../src/protocol/audit';
import { signInternalRequest } from '../auth/internal-auth';
import type { Principal } from '../http/env';
import { PlatformError } from '../http/errors';
import type { ChainVerdict } from './chain';

/** How a MACROSERVICE gateway reaches the services' audit logs: the shared secret and a deadline. */
export interface ServiceLogAccess {
  /** The secret shared with services (`PLATFORM_INTERNAL_SECRET`). */
  secret: string;
  /** Deadline of one service's answer (`desk.upstream_timeout_ms`). */
  timeoutMs: number;
  /** The caller the gateway signs for: each service checks its rights itself. */
  principal: Principal;
  fetch?: typeof fetch;
}

/**
 * A service's refusal (its status and JSON error body), passed back to the caller as it is: a 403
 * `forbidden` from a service means the caller may not read the audit log, wherever it is kept.
 */
export class ServiceRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`a service answered ${status}`);
  }
}

/** One page of a service's log, its entries named after the service. */
export interface ServicePage {
  data: AuditEntry[];
  total: number;
}

/** `GET <apiUrl><path>` signed for the caller; its JSON, or a {@link ServiceRefusal}, or 503/504. */
async function askService<T>(manifest: ServiceManifest, path: string, access: ServiceLogAccess): Promise<T> {
  const url = new URL(`${manifest.apiUrl.replace(/\/+$/, '')}${path}`);
  const headers = signInternalRequest(access.secret, {
    method: 'GET',
    target: url.pathname + url.search,
    body: '',
    principal: access.principal,
  });
  let res: Response;
  try {
    res = await (access.fetch ?? fetch)(url, { headers, signal: AbortSignal.timeout(access.timeoutMs) });
  } catch (cause) {
    if ((cause as Error).name === 'TimeoutError') {
      throw new PlatformError('upstream_timeout', `Service ${manifest.service} did not answer in time.`, {
        status: 504,
        cause,
      });
    }
    // Part of the log missing would read as a complete answer: the whole request fails instead.
    throw new PlatformError('service_unavailable', `Service ${manifest.service} is unavailable.`, {
      status: 503,
      headers: { 'Retry-After': '1' },
      cause,
    });
  }
  if (!res.ok) throw new ServiceRefusal(res.status, await res.text());
  return (await res.json()) as T;
}

/** A page of `manifest`'s log for the query string `query` (the audit API's own parameters). */
export async function servicePage(
  manifest: ServiceManifest,
  query: URLSearchParams,
  access: ServiceLogAccess,
): Promise<ServicePage> {
  const page = await askService<ServicePage>(manifest, `/audit?${query}`, access);
  return { data: page.data.map((entry) => ({ ...entry, service: manifest.service })), total: page.total };
}

/** The service's own check of its chain (`GET /api/audit/verify`). */
export async function serviceVerdict(
  manifest: ServiceManifest,
  access: ServiceLogAccess,
): Promise<ChainVerdict> {
  return (await askService<{ data: ChainVerdict }>(manifest, '/audit/verify', access)).data;
}
