/** Wire types of the session endpoints beyond login and logout. Types only. */

/** What one user may do with one DocType. */
export interface DocTypePermissions {
  read: boolean;
  create: boolean;
  write: boolean;
  delete: boolean;
  read_pii?: boolean;
}

/**
 * `GET /api/method/whoami`: the signed-in caller. `csrf_token` is the token bound to the caller's session (a
 * new tab of the same browser obtains it here); `roles` and `permissions` are present where roles exist.
 */
export interface WhoamiResponse {
  message: {
    user: string;
    full_name: string;
    csrf_token: string;
    roles?: string[];
    permissions?: Record<string, DocTypePermissions>;
  };
}
