import type { ErrorHandler, MiddlewareHandler } from 'hono';
import type { AppContext } from '../context';
import { isForwardedPath } from '../gateway/forwarded-paths';
import type { AppEnv } from '../http/env';
import { authStep } from './auth';
import { bodyLimitStep } from './body-limit';
import { csrfStep } from './csrf';
import { hostCheckStep } from './host-check';
import { idempotencyStep, idempotencyWaitMs } from './idempotency';
import { payloadDecryptionStep } from './payload-decryption';
import { rateLimitStep } from './rate-limit';
import { requestTargetStep } from './request-target';
import { withServerTiming } from './server-timing';
import { type ChainStep, foldSteps, stepMiddleware } from './step';

/** What the middleware table reads: the configuration and the security services. */
export type MiddlewareDeps = Pick<AppContext, 'config' | 'security'>;

/**
 * One row of the middleware table: a middleware of docs/security.md#middleware-chain, its priority, and how
 * to build it from the context, as a step of the folded chain (`step`) or as a Hono middleware of its own
 * (`factory`, the same behaviour).
 */
export interface MiddlewareEntry {
  name: string;
  /** Lower runs first (docs/security.md#middleware-chain). */
  priority: number;
  step(deps: MiddlewareDeps): ChainStep;
  factory(deps: MiddlewareDeps): MiddlewareHandler<AppEnv>;
}

function entry(name: string, priority: number, step: (deps: MiddlewareDeps) => ChainStep): MiddlewareEntry {
  return { name, priority, step, factory: (deps) => stepMiddleware(step(deps)) };
}

/**
 * THE middleware table (priorities in docs/security.md#middleware-chain; docs/security.md#rules explains why
 * this order is safe). This is the only place the order is declared.
 */
export const MIDDLEWARE: readonly MiddlewareEntry[] = [
  entry('HostCheckMiddleware', 5, ({ config }) => hostCheckStep(config)),
  entry('RequestTargetMiddleware', 6, () => requestTargetStep()),
  entry('RateLimitMiddleware', 10, ({ config }) =>
    rateLimitStep({
      enabled: config.security.rate_limit.enabled,
      windowMs: config.security.rate_limit.window_seconds * 1000,
      max: config.security.rate_limit.max_requests,
      trustedProxies: config.server.trusted_proxies,
    }),
  ),
  entry('BodyLimitMiddleware', 12, ({ config }) =>
    bodyLimitStep({
      maxBodyBytes: config.server.max_body_bytes,
      maxAnonymousBodyBytes: config.server.max_anonymous_body_bytes,
      maxJweBytes: config.security.payload_encryption.max_jwe_bytes,
      maxAttachmentBytes: config.attachments.max_bytes,
    }),
  ),
  entry('PayloadDecryptionMiddleware', 15, ({ config, security }) =>
    payloadDecryptionStep({
      policy: security.policy,
      keys: security.keys,
      replay: security.replay,
      maxJweBytes: config.security.payload_encryption.max_jwe_bytes,
      maxBodyBytes: config.server.max_body_bytes,
      // Only a MACROSERVICE gateway runs this chain in that mode; it forwards service-key JWEs unopened.
      forwardSealed: config.mode === 'macroservice',
    }),
  ),
  entry('CSRFMiddleware', 20, ({ config, security }) =>
    csrfStep({
      trustedOrigins: config.security.csrf.trusted_origins,
      publicUrl: config.server.public_url,
      checkToken: (session, token) => security.auth.checkCsrfToken(session, token),
    }),
  ),
  entry('IdempotencyMiddleware', 30, ({ config, security }) =>
    idempotencyStep({
      store: security.idempotency,
      ttlMs: config.security.idempotency.ttl_seconds * 1000,
      waitMs: idempotencyWaitMs(config.desk.upstream_timeout_ms),
      // A MACROSERVICE gateway leaves the records of forwarded writes to the services storing them.
      passOn: config.mode === 'macroservice' ? (c) => isForwardedPath(c.req.path) : undefined,
      resolve: (credential) => security.auth.resolve(credential),
      cached: (credential) => security.auth.resolveCached(credential),
    }),
  ),
  entry('AuthMiddleware', 50, ({ security }) =>
    authStep({
      resolve: (credential) => security.auth.resolve(credential),
      cached: (credential) => security.auth.resolveCached(credential),
    }),
  ),
];

/** The table's rows, lower priority first. */
function ordered(): MiddlewareEntry[] {
  return [...MIDDLEWARE].sort((a, b) => a.priority - b.priority);
}

/**
 * The middleware chain in the priority order of docs/security.md#middleware-chain (lower runs first):
 * HostCheck 5, RequestTarget 6, RateLimit 10, BodyLimit 12, PayloadDecryption 15, CSRF 20, Idempotency 30, Auth 50,
 * each as a Hono middleware of its own.
 */
export function middlewareChain(deps: MiddlewareDeps): MiddlewareHandler<AppEnv>[] {
  return ordered().map((row) => row.factory(deps));
}

/** The steps of the chain in priority order (what {@link securityChain} runs). */
export function chainSteps(deps: MiddlewareDeps): ChainStep[] {
  return ordered().map((row) => row.step(deps));
}

/**
 * The whole chain as ONE Hono middleware (what the app mounts): the same steps in the same priority order with
 * the same answers as {@link middlewareChain}, run as plain calls that await only where a step waits for I/O
 * (a body, decryption, the idempotency store). `onError` is the app's error handler: an error a step throws
 * becomes its answer there, as Hono does between separate middleware, so the steps before it see it.
 */
export function securityChain(
  deps: MiddlewareDeps,
  onError: ErrorHandler<AppEnv>,
): MiddlewareHandler<AppEnv> {
  // Server-Timing for a System Manager who asks (backend/middleware/server-timing.ts): the same steps, each
  // timed only on a request being timed.
  return foldSteps(withServerTiming(chainSteps(deps), { always: deps.config.server.server_timing }), onError);
}
