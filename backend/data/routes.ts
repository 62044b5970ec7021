import { Hono } from 'hono';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';

/** DocType data API (/api/resource) and RPC (/api/method). */
export function dataRoutes(_ctx: AppContext): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
