import type { Context, MiddlewareHandler } from 'hono';
import { GATEWAY_PREFIX, LOGIN_PATH, SECURITY_PREFIX } from '../../src/protocol';
import { type PresentedCredential, presentedCredential } from '../auth/credentials';
import type { AppEnv, Principal } from '../http/env';
import { PlatformError } from '../http/errors';
import { type ChainStep, stepMiddleware } from './step';

/** Resolves a presented credential to a principal; the AuthService provides it. */
export type CredentialResolver = (credential: PresentedCredential) => Promise<Principal | undefined>;

/** Options of {@link auth}. */
export interface AuthOptions {
  resolve: CredentialResolver;
  /**
   * The principal `resolve` would give when it is already known without I/O (the AuthService's cache of
   * recently resolved credentials), else undefined; lets a repeat caller pass without an await.
   */
  cached?(credential: PresentedCredential): Principal | undefined;
}

/** Paths under `/api/` anyone may call; every other `/api/` path needs a principal. */
export const PUBLIC_API_PREFIXES = [GATEWAY_PREFIX, SECURITY_PREFIX] as const;
/** Exact public `/api/` paths. */
export const PUBLIC_API_PATHS = [LOGIN_PATH, '/api/openapi.json'] as const;

/** True when the path needs a principal: everything under `/api/` except the public endpoints. */
export function requiresPrincipal(path: string): boolean {
  if (!path.startsWith('/api/') && path !== '/api') return false;
  if ((PUBLIC_API_PATHS as readonly string[]).includes(path)) return false;
  for (const prefix of PUBLIC_API_PREFIXES) if (path.startsWith(prefix)) return false;
  return true;
}

/** The one 401 body: a wrong password, an expired session and a malformed header all look the same. */
export function unauthorized(): PlatformError {
  return new PlatformError('unauthorized', 'Authentication is required, or the credentials are not valid.', {
    status: 401,
    headers: { 'WWW-Authenticate': 'Bearer realm="desk", token' },
  });
}

/**
 * AuthMiddleware (priority 50, docs/security.md#middleware-chain): runs the AuthChain. The presented
 * credential is the `Authorization` header when present (`token <key>:<secret>` for an API key,
 * `Bearer <token>`), else the session cookie; the resolver checks it and the principal is set as
 * `c.get('principal')`.
 *
 * Desk pages, `/api/gateway/*`, `/api/v1/security/*`, login and the OpenAPI document are public (a bad
 * credential there is ignored); every other `/api/` path (`/api/resource/*`, `/api/method/*`, `/api/meta/*`)
 * without a valid principal is 401 `unauthorized` with one fixed body. A credential resolved recently (the
 * AuthService's cache) is taken synchronously; only one to look up is awaited.
 */
export function authStep(options: AuthOptions): ChainStep {
  const { resolve, cached } = options;
  async function resolveThenDecide(c: Context<AppEnv>, credential: PresentedCredential): Promise<undefined> {
    decide(c, await resolve(credential));
    return undefined;
  }
  return {
    name: 'auth',
    enter(c) {
      const credential = presentedCredential(c);
      if (credential === undefined) return decide(c, undefined);
      const known = cached?.(credential);
      return known ? decide(c, known) : resolveThenDecide(c, credential);
    },
  };
}

function decide(c: Context<AppEnv>, principal: Principal | undefined): undefined {
  if (principal) c.set('principal', principal);
  else if (requiresPrincipal(c.req.path)) throw unauthorized();
  return undefined;
}

/** {@link authStep} as a Hono middleware of its own. */
export const auth = (options: AuthOptions): MiddlewareHandler<AppEnv> => stepMiddleware(authStep(options));
