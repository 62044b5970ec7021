import { Hono } from 'hono';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';

/** Desk HTML (/desk/) and MFE assets (/desk/assets/). */
export function deskRoutes(_ctx: AppContext): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
