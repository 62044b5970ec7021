import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';
import { auth } from './auth';
import { csrf } from './csrf';
import { idempotency } from './idempotency';
import { payloadDecryption } from './payload-decryption';
import { rateLimit } from './rate-limit';

/** What the middleware table reads: the configuration and the security services. */
export type MiddlewareDeps = Pick<AppContext, 'config' | 'security'>;

/**
 * One row of the middleware table: a middleware of docs/security.md#middleware-chain, its priority, and how
 * to build it from the context.
 */
export interface MiddlewareEntry {
  name: string;
  /** Lower runs first (docs/security.md#middleware-chain). */
  priority: number;
  factory(deps: MiddlewareDeps): MiddlewareHandler<AppEnv>;
}

/**
 * THE middleware table (priorities in docs/security.md#middleware-chain; docs/security.md#rules explains why
 * this order is safe). This is the only place the order is declared.
 */
export const MIDDLEWARE: readonly MiddlewareEntry[] = [
  {
    name: 'RateLimitMiddleware',
    priority: 10,
    factory: ({ config }) =>
      rateLimit({
        enabled: config.security.rate_limit.enabled,
        windowMs: config.security.rate_limit.window_seconds * 1000,
        max: config.security.rate_limit.max_requests,
        trustedProxies: config.security.trusted_proxies,
      }),
  },
  {
    name: 'PayloadDecryptionMiddleware',
    priority: 15,
    factory: ({ config, security }) =>
      payloadDecryption({
        policy: security.policy,
        keys: security.keys,
        maxJweBytes: config.security.payload_encryption.max_jwe_bytes,
        maxBodyBytes: config.server.max_body_bytes,
      }),
  },
  {
    name: 'CSRFMiddleware',
    priority: 20,
    factory: ({ config, security }) =>
      csrf({
        trustedOrigins: config.security.csrf.trusted_origins,
        publicUrl: config.server.public_url,
        checkToken: (session, token) => security.auth.checkCsrfToken(session, token),
      }),
  },
  {
    name: 'IdempotencyMiddleware',
    priority: 30,
    factory: ({ config, security }) =>
      idempotency({ store: security.idempotency, ttlMs: config.security.idempotency.ttl_seconds * 1000 }),
  },
  {
    name: 'AuthMiddleware',
    priority: 50,
    factory: ({ security }) => auth({ resolve: (credential) => security.auth.resolve(credential) }),
  },
];

/**
 * The middleware chain in the priority order of docs/security.md#middleware-chain (lower runs first):
 * RateLimit 10, PayloadDecryption 15, CSRF 20, Idempotency 30, Auth 50.
 */
export function middlewareChain(deps: MiddlewareDeps): MiddlewareHandler<AppEnv>[] {
  return [...MIDDLEWARE].sort((a, b) => a.priority - b.priority).map((entry) => entry.factory(deps));
}
