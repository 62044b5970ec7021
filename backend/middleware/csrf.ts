import type { MiddlewareHandler } from 'hono';
import { CSRF_HEADER, isSafeMethod, LOGIN_PATH } from '../../src/protocol';
import { presentedCredential } from '../auth/credentials';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { requestHeader } from '../http/node-request';
import { type ChainStep, stepMiddleware } from './step';

/** Options of {@link csrf}. */
export interface CsrfOptions {
  /** Extra origins allowed on cookie-authenticated unsafe requests (`security.csrf.trusted_origins`). */
  trustedOrigins: readonly string[];
  /** The public base URL, when the server sits behind a proxy that changes the Host. */
  publicUrl?: string;
  /** Checks the session-bound token (constant time); the AuthService provides it. */
  checkToken(sessionToken: string, presented: string): boolean;
}

/** The token's field name as `requestHeader` looks it up. */
const CSRF_FIELD = CSRF_HEADER.toLowerCase();

function forbidden(message: string): PlatformError {
  return new PlatformError('csrf_failed', message, { status: 403 });
}

/**
 * CSRFMiddleware (priority 20, docs/security.md#middleware-chain). Reads headers only
 * (docs/security.md#cheap-checks-first).
 *
 * An unsafe request that carries the session cookie (an ambient credential) must
 * 1. not be `Sec-Fetch-Site: cross-site` or `same-site` (unless its Origin is trusted), and
 * 2. have an `Origin`, when sent, equal to the server's own origin or a trusted origin (never `null`,
 *    never a look-alike such as `https://<host>.evil.example`: origins are compared whole), and
 * 3. send the token bound to its session in `X-CSRF-Token` (returned by login).
 * Requests authenticated by an `Authorization` header (API key, bearer) carry no ambient credential and are
 * exempt. Login requests get the origin checks (1, 2) only, with or without a (stale) session cookie.
 * Synchronous.
 */
export function csrfStep(options: CsrfOptions): ChainStep {
  const trusted = new Set(options.trustedOrigins.map((o) => new URL(o).origin));
  if (options.publicUrl) trusted.add(new URL(options.publicUrl).origin);
  return {
    name: 'csrf',
    enter(c) {
      if (isSafeMethod(c.req.method)) return undefined;
      const credential = presentedCredential(c);
      // The login route: no session yet, but a cross-site login (login CSRF) is still refused by origin.
      const isLogin = c.req.path === LOGIN_PATH;
      if (credential?.kind !== 'session' && !isLogin) return undefined;

      const ownOrigin = new URL(c.req.url).origin;
      const origin = requestHeader(c, 'origin');
      const originOk = origin !== undefined && (origin === ownOrigin || trusted.has(origin));
      if (origin !== undefined && !originOk) throw forbidden('The request origin is not allowed.');
      const site = requestHeader(c, 'sec-fetch-site')?.toLowerCase();
      if ((site === 'cross-site' || site === 'same-site') && !originOk) {
        throw forbidden('Cross-site requests are not allowed.');
      }
      if (credential?.kind === 'session' && !isLogin) {
        const token = requestHeader(c, CSRF_FIELD);
        if (!token || !options.checkToken(credential.token, token)) {
          throw forbidden('A valid X-CSRF-Token header is required.');
        }
      }
      return undefined;
    },
  };
}

/** {@link csrfStep} as a Hono middleware of its own. */
export const csrf = (options: CsrfOptions): MiddlewareHandler<AppEnv> => stepMiddleware(csrfStep(options));
