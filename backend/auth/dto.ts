import { z } from 'zod';

/**
 * Request DTOs of the auth routes. They are not DocType models, so they must never carry the `encrypted` /
 * `pii` field flags (docs/security.md#field-flags; the OpenAPI generator refuses them): the login route is
 * protected by selective-mode route encryption instead.
 */
export const LoginRequest = z.object({ usr: z.string().min(1).max(140), pwd: z.string().min(1).max(1024) });

/** `POST /api/method/platform.auth.change_password`. */
export const ChangePasswordRequest = z.object({
  old_password: z.string().min(1).max(1024),
  new_password: z.string().min(8).max(1024),
});

/** `POST /api/method/platform.auth.generate_api_key`; `user` defaults to the caller. */
export const GenerateApiKeyRequest = z.object({ user: z.string().min(1).max(140).optional() });

/** `POST /api/method/platform.auth.issue_token`; `expires_in` in seconds, at most one day. */
export const IssueTokenRequest = z.object({ expires_in: z.number().int().positive().optional() });
