import { Hono } from 'hono';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';

/** Security endpoints (/api/v1/security/config, /api/v1/security/jwks). */
export function securityRoutes(_ctx: AppContext): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
