import { type Context, Hono } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { z } from 'zod';
import {
  CHANGE_PASSWORD_PATH,
  GENERATE_API_KEY_PATH,
  ISSUE_TOKEN_PATH,
  LOGIN_PATH,
  LOGOUT_PATH,
} from '../../src/protocol';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { readJsonBody } from '../http/read-body';
import { isSecureRequest, type SecureRequestOptions } from '../http/secure-request';
import { unauthorized } from '../middleware/auth';
import { clientAddress } from '../middleware/client-address';
import { forbidden } from '../permissions/guard';
import { SYSTEM_MANAGER } from '../permissions/model';
import { rolesOf } from '../permissions/routes';
import type { AuthService } from './auth-service';
import { presentedCredential, SESSION_COOKIE } from './credentials';
import { ChangePasswordRequest, GenerateApiKeyRequest, IssueTokenRequest, LoginRequest } from './dto';
import type { HashGate } from './hash-gate';
import type { LoginThrottle } from './login-throttle';

/** Longest bearer-token lifetime a caller may ask for (and the default): one day. */
const MAX_TOKEN_TTL_SECONDS = 86_400;

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  // Field names and codes only: a password must never be echoed back.
  const fields = result.error.issues.map((i) => ({
    field: i.path.join('.') || '(body)',
    code: i.code,
    message: i.code === 'invalid_type' ? 'Required, of the right type.' : 'Invalid value.',
  }));
  throw new PlatformError('validation_failed', 'The request body is not valid.', { status: 400, fields });
}

function principalOf(c: Context<AppEnv>) {
  const principal = c.get('principal');
  if (!principal) throw unauthorized();
  return principal;
}

/**
 * What {@link authRoutes} reads: the auth store, the session lifetime (`security.session.ttl_seconds`), the
 * login throttle and hash gate, and the proxies whose `X-Forwarded-For` names the client address.
 */
export interface AuthRouteDeps {
  auth: AuthService;
  sessionTtlSeconds: number;
  /** `server.public_url`: an https one gives the session cookie `Secure` on every request. */
  publicUrl?: string;
  loginThrottle: LoginThrottle;
  hashGate: HashGate;
  /** `server.trusted_proxies`: their `X-Forwarded-For` names the client, their `X-Forwarded-Proto` https. */
  trustedProxies: readonly string[];
}

/** How recently the password must have been entered for a session to create an API key. */
const RECENT_SIGN_IN_MS = 10 * 60_000;

function tooManyAttempts(retryAfterSeconds: number): PlatformError {
  return new PlatformError(
    'too_many_attempts',
    `Too many failed sign-ins; try again in ${retryAfterSeconds} s.`,
    { status: 429, headers: { 'Retry-After': String(retryAfterSeconds) } },
  );
}

/**
 * Auth routes (Frappe-style RPC paths; AuthMiddleware makes everything but login require a principal):
 * - `POST /api/method/login` `{ usr, pwd }` -> session cookie `sid` (HttpOnly, SameSite=Lax, Path=/, Secure on
 *   https: see `isSecureRequest`) and `{ message: "Logged In", csrf_token, user }`; wrong credentials are the one 401 body.
 * - `POST /api/method/logout` -> ends the session, clears the cookie.
 * - `GET /api/method/platform.auth.whoami` -> `{ message: { user, via } }`.
 * - `POST /api/method/platform.auth.change_password` `{ old_password, new_password }` (ends other sessions).
 * - `POST /api/method/platform.auth.generate_api_key` `{ user? }` -> `{ message: { api_key, api_secret } }`;
 *   only a System Manager may name another user, and only from a session signed in within the last 10 minutes
 *   (a bearer token, an API key or an older session: 403).
 *   Use as `Authorization: token <api_key>:<api_secret>`.
 * - `POST /api/method/platform.auth.issue_token` `{ expires_in? }` -> `{ message: { access_token,
 *   token_type: "Bearer", expires_in } }` for the calling user (not for a bearer-token caller: 403). Use as
 *   `Authorization: Bearer <token>`.
 * Sign-ins are throttled (docs/security.md#login-throttling): 429 `too_many_attempts` with `Retry-After`.
 */
export function authRoutes(deps: AuthRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const service = deps.auth;
  const sessionTtl = deps.sessionTtlSeconds;
  const trusted = new Set(deps.trustedProxies);
  const secureRequest: SecureRequestOptions = {
    publicUrl: deps.publicUrl,
    trustedProxies: deps.trustedProxies,
  };

  app.post(LOGIN_PATH, async (c) => {
    const { usr, pwd } = parse(LoginRequest, await readJsonBody(c));
    // Throttled per account and per client address before any password is checked
    // (docs/security.md#login-throttling): a locked account refuses the right password too.
    const address = clientAddress(c, trusted);
    const outcome = await deps.loginThrottle.oneAtATime(usr, async () => {
      const decision = await deps.loginThrottle.begin(usr, address);
      if (!decision.allowed) return decision;
      // The request's signal aborts when the client closes the connection: a sign-in nobody waits for
      // any more is never hashed (backend/auth/hash-gate.ts).
      const started = await deps.hashGate.run(() => service.login(usr, pwd), c.req.raw.signal);
      if (started) await decision.attempt.succeeded();
      else await decision.attempt.failed();
      return { allowed: true as const, session: started };
    });
    if (!outcome.allowed) {
      // Held after the account's queue, not in it: other sign-ins of the account go on meanwhile.
      await deps.loginThrottle.holdRefusal(c.req.raw.signal);
      throw tooManyAttempts(outcome.retryAfterSeconds);
    }
    const session = outcome.session;
    if (!session) throw unauthorized();
    setCookie(c, SESSION_COOKIE, session.token, {
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
      secure: isSecureRequest(c, secureRequest),
      maxAge: sessionTtl,
    });
    c.header('Cache-Control', 'no-store');
    return c.json({ message: 'Logged In', csrf_token: session.csrfToken, user: session.user });
  });

  app.post(LOGOUT_PATH, async (c) => {
    principalOf(c);
    const credential = presentedCredential(c);
    if (credential?.kind === 'session') await service.logout(credential.token);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.json({ message: 'Logged Out' });
  });

  app.get('/api/method/platform.auth.whoami', (c) => {
    const { user, via } = principalOf(c);
    return c.json({ message: { user, via } });
  });

  app.post(CHANGE_PASSWORD_PATH, async (c) => {
    const { user } = principalOf(c);
    const body = parse(ChangePasswordRequest, await readJsonBody(c));
    const credential = presentedCredential(c);
    const keep = credential?.kind === 'session' ? credential.token : undefined;
    if (!(await service.changePassword(user, body.old_password, body.new_password, keep))) {
      throw unauthorized();
    }
    return c.json({ message: 'Password Changed' });
  });

  app.post(GENERATE_API_KEY_PATH, async (c) => {
    const principal = principalOf(c);
    // An API key never expires: made from a bearer token or another key it would outlive the credential that
    // made it (docs/security.md#auth). Only a signed-in session (or `m user` on the server) makes one.
    const credential = presentedCredential(c);
    if (principal.via !== 'session' || credential?.kind !== 'session') {
      throw forbidden('call', 'platform.auth.generate_api_key without a signed-in session');
    }
    // A key outlives the session too: the password must have been entered recently, not by whoever found
    // an unlocked browser a day later.
    const signedInAt = await service.sessionSignedInAt(credential.token);
    if (signedInAt === undefined || Date.now() - signedInAt > RECENT_SIGN_IN_MS) {
      throw new PlatformError('forbidden', 'Sign in again to create an API key.', { status: 403 });
    }
    const { user = principal.user } = parse(GenerateApiKeyRequest, await readJsonBody(c));
    if (user !== principal.user && !rolesOf(principal).includes(SYSTEM_MANAGER)) {
      throw new PlatformError('forbidden', 'Only a System Manager may create API keys for another user.', {
        status: 403,
      });
    }
    if (!(await service.userExists(user))) {
      throw new PlatformError('not_found', 'No such user.', { status: 404 });
    }
    c.header('Cache-Control', 'no-store');
    return c.json({ message: await service.generateApiKey(user) });
  });

  app.post(ISSUE_TOKEN_PATH, async (c) => {
    const { user, via } = principalOf(c);
    // A token minting tokens would outlive its own expiry and any revocation of it.
    if (via === 'bearer') throw forbidden('call', 'platform.auth.issue_token with a bearer token');
    const { expires_in = MAX_TOKEN_TTL_SECONDS } = parse(IssueTokenRequest, await readJsonBody(c));
    let seconds = Math.min(expires_in, MAX_TOKEN_TTL_SECONDS);
    // A token made from a session expires with it at the latest (docs/security.md#auth).
    const credential = presentedCredential(c);
    if (credential?.kind === 'session') {
      const expiresAt = await service.sessionExpiresAt(credential.token);
      if (expiresAt === undefined) throw unauthorized();
      seconds = Math.max(1, Math.min(seconds, Math.floor((expiresAt - Date.now()) / 1000)));
    }
    const token = await service.issueToken(user, seconds * 1000);
    c.header('Cache-Control', 'no-store');
    return c.json({ message: { access_token: token, token_type: 'Bearer', expires_in: seconds } });
  });

  return app;
}
