import { Hono } from 'hono';
import { WHOAMI_PATH, type WhoamiResponse } from '../../src/protocol';
import type { AppEnv, Principal } from '../http/env';
import { unauthorized } from '../middleware/auth';
import type { PermissionMap } from '../permissions/model';
import { rolesOf } from '../permissions/routes';
import { presentedCredential } from './credentials';

/** Where whoami gets the effective permissions of a principal from (local rules, or the services'). */
export type PermissionSource = (principal: Principal) => Promise<PermissionMap>;

/** What {@link whoamiRoutes} needs. */
export interface WhoAmIDeps {
  permissionsOf: PermissionSource;
  /** The CSRF token bound to a session (so a reloaded Desk can keep writing without a new login). */
  csrfToken(sessionToken: string): string;
}

/**
 * `GET /api/method/whoami` (docs/permissions.md#who-am-i): `{ message: { user, full_name, csrf_token, roles,
 * permissions } }`, where `permissions` maps every installed DocType to `{ read, create, write, delete,
 * read_pii }` for the caller's roles. `csrf_token` is empty for header-authenticated callers.
 */
export function whoamiRoutes({ permissionsOf, csrfToken }: WhoAmIDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(WHOAMI_PATH, async (c) => {
    const principal = c.get('principal');
    if (!principal) throw unauthorized();
    const credential = presentedCredential(c);
    c.header('Cache-Control', 'no-store');
    const answer: WhoamiResponse = {
      message: {
        user: principal.user,
        full_name: principal.user,
        // The token bound to this session, so any tab of the browser holding the cookie can make unsafe
        // requests; header-authenticated callers carry no ambient authority and need none.
        csrf_token: credential?.kind === 'session' ? csrfToken(credential.token) : '',
        roles: [...rolesOf(principal)],
        permissions: await permissionsOf(principal),
      },
    };
    return c.json(answer);
  });
  return routes;
}
