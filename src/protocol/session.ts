/** Wire types of the session endpoints beyond login and logout. Types only. */
import type { DocTypePermissions } from './permissions';

/**
 * `GET /api/method/whoami`: the signed-in caller. `csrf_token` is the token bound to the caller's session (a
 * new tab of the same browser obtains it here); `roles` and `permissions` are the caller's roles and effective
 * permissions per DocType (docs/permissions.md).
 */
export interface WhoamiResponse {
  message: {
    user: string;
    full_name: string;
    csrf_token: string;
    roles: string[];
    permissions: Record<string, DocTypePermissions>;
  };
}
