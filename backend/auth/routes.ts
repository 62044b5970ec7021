import { Hono } from 'hono';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';

/** Login and session routes (POST /api/method/login, logout). */
export function authRoutes(_ctx: AppContext): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
