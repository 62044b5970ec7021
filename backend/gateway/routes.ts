import { Hono } from 'hono';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';

/** Gateway discovery endpoints (/api/gateway). */
export function gatewayRoutes(_ctx: AppContext): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
