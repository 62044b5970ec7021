import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';

/**
 * The middleware chain in SPEC.md priority order (lower runs first):
 * RateLimit 10, PayloadDecryption 15, CSRF 20, Idempotency 30, Auth 50.
 */
export function middlewareChain(_ctx: AppContext): MiddlewareHandler<AppEnv>[] {
  return [];
}
