import { signInternalRequest } from '../auth/internal-auth';
import type { PermissionSource } from '../auth/whoami';
import type { ServiceDirectory } from '../gateway/service-directory';
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
  const fetchImpl = options.fetch ?? fetch;
  return async (principal) => {
    const maps = await Promise.all(
      options.directory.list().map(async (manifest): Promise<PermissionMap> => {
        const url = new URL(`${manifest.apiUrl.replace(/\/+$/, '')}/permissions`);
        const headers = signInternalRequest(options.secret, {
          method: 'GET',
          target: url.pathname + url.search,
          body: '',
          principal,
        });
        try {
          const res = await fetchImpl(url, { headers, signal: AbortSignal.timeout(options.timeoutMs) });
          if (!res.ok) return {};
          const json = (await res.json()) as { message?: PermissionMap };
          return json.message ?? {};
        } catch {
          return {};
        }
      }),
    );
    return Object.assign({}, ...maps) as PermissionMap;
  };
}
