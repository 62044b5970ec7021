import { ADMINISTRATOR } from '../../backend/auth/auth-service';
import type { AppContext } from '../../backend/context';
import { type Fetcher, request } from './http';

/** Creates an API key for a user (default Administrator) and returns its `Authorization` header value. */
export async function apiKeyAuthorization(
  ctx: Pick<AppContext, 'security'>,
  user = ADMINISTRATOR,
): Promise<string> {
  const { api_key, api_secret } = await ctx.security.auth.generateApiKey(user);
  return `token ${api_key}:${api_secret}`;
}

/**
 * Creates a user with a password (no-op when it exists) holding `roles`; by default `Sales User`, who may
 * create and read the crm DocTypes the tests use (docs/permissions.md).
 */
export async function createUser(
  ctx: AppContext,
  name: string,
  password: string,
  roles: readonly string[] = ['Sales User'],
): Promise<void> {
  await ctx.security.auth.createUser(name, password);
  await ctx.security.users.setRoles(name, roles);
}

/** A logged-in cookie session: the `Cookie` header value and the CSRF token bound to it. */
export interface CookieSession {
  cookie: string;
  csrfToken: string;
}

/**
 * Logs in through `POST /api/method/login` (plaintext; use it with a mode that does not encrypt login) and
 * returns the session cookie and CSRF token. Throws when the login is refused.
 */
export async function loginSession(app: Fetcher, usr = ADMINISTRATOR, pwd = 'admin'): Promise<CookieSession> {
  const res = await request(app, 'POST', '/api/method/login', { body: { usr, pwd }, anonymous: true });
  if (res.status !== 200) throw new Error(`login failed with ${res.status}: ${await res.text()}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  const { csrf_token } = (await res.json()) as { csrf_token: string };
  return { cookie, csrfToken: csrf_token };
}

/** Headers of a cookie-authenticated same-origin request: the cookie, its CSRF token and the origin. */
export function sessionHeaders(session: CookieSession, origin = 'http://desk.test'): Record<string, string> {
  return { cookie: session.cookie, 'x-csrf-token': session.csrfToken, origin };
}
