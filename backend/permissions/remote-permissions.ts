import { signInternalRequest } from '../auth/internal-auth';
import type { PermissionSource } from '../auth/whoami';
import type { ServiceDirectory } from '../gateway/service-directory';
import type { Principal } from '../http/env';
import type { PermissionMap } from './model';

/** Options of {@link remotePermissionSource}. */
export interface RemotePermissionOptions {
  directory: Pick<ServiceDirectory, 'list'>;
  /** The secret shared with services (`PLATFORM_INTERNAL_SECRET`). */
  secret: string;
  /** Deadline of one service's answer. */
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * MACROSERVICE whoami: each service computes the caller's permissions on its own DocTypes from the roles in
 * the principal this gateway signs (`GET <apiUrl>/permissions`), so the answer comes from where the rules
 * are stored. A service that does not answer contributes nothing: its DocTypes are missing from the map,
 * and the Desk hides them until it answers again.
 */
export function remotePermissionSource(options: RemotePermissionOptions): PermissionSource {
  return async (principal) => {
    const maps = await fanOut<PermissionMap>(options, principal, '/permissions');
    return Object.assign({}, ...maps.map((m) => m ?? {})) as PermissionMap;
  };
}

/**
 * MACROSERVICE users API: the roles each service's rules in force name (`GET <apiUrl>/permissions/roles`),
 * asked as `principal` (a System Manager). A service that does not answer contributes the roles it named
 * the last time it answered this gateway, so an administrator giving a role while its service restarts
 * still finds it offered (none, if it has not answered since the gateway started).
 */
export function remoteRoleSource(
  options: RemotePermissionOptions,
): (principal: Principal) => Promise<string[]> {
  const lastNamed = new Map<string, string[]>();
  return async (principal) => {
    const services = options.directory.list();
    const lists = await fanOut<string[]>(options, principal, '/permissions/roles', services);
    const named = services.flatMap((manifest, i) => {
      const list = lists[i];
      if (!Array.isArray(list)) return lastNamed.get(manifest.service) ?? [];
      lastNamed.set(manifest.service, list);
      return list;
    });
    return [...new Set(named)].sort();
  };
}

/**
 * `GET <apiUrl><path>` of every service (or of `services`) as `principal`, signed; each answer's `message`,
 * or undefined, in the order of the services.
 */
async function fanOut<T>(
  options: RemotePermissionOptions,
  principal: Principal,
  path: string,
  services = options.directory.list(),
): Promise<Array<T | undefined>> {
  const fetchImpl = options.fetch ?? fetch;
  return Promise.all(
    services.map(async (manifest): Promise<T | undefined> => {
      const url = new URL(`${manifest.apiUrl.replace(/\/+$/, '')}${path}`);
      const headers = signInternalRequest(options.secret, {
        method: 'GET',
        target: url.pathname + url.search,
        body: '',
        principal,
      });
      try {
        const res = await fetchImpl(url, { headers, signal: AbortSignal.timeout(options.timeoutMs) });
        if (!res.ok) return undefined;
        return ((await res.json()) as { message?: T }).message;
      } catch {
        return undefined;
      }
    }),
  );
}
