import type { Hono } from 'hono';
import { createApiApp } from './api-app';
import type { AppContext } from './context';
import { deskRoutes } from './desk/routes';
import type { AppEnv } from './http/env';

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  /**
   * MACROSERVICE gateway: routes forwarding data, RPC and metadata requests to the services
   * (backend/macro/forward.ts), mounted after the middleware chain and before the local data routes.
   */
  forwarding?: Hono<AppEnv>;
}

/**
 * Builds the platform's Hono app: the API (`createApiApp`: middleware chain and route groups) plus the
 * Desk's pages and assets. The same app answers `app.fetch(request)` in tests and behind
 * @hono/node-server in `m serve`.
 */
export function createApp(ctx: AppContext, options: CreateAppOptions = {}): Hono<AppEnv> {
  return createApiApp(ctx, { ...options, frontend: deskRoutes(ctx) });
}
