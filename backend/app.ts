import { Hono } from 'hono';
import { createApiApp } from './api-app';
import { trustGateway } from './auth/internal-auth';
import type { AppContext } from './context';
import { dataRoutes } from './data/routes';
import { deskRoutes } from './desk/routes';
import type { AppEnv } from './http/env';
import { handleError, notFound } from './http/errors';

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  /**
   * MACROSERVICE gateway: routes forwarding data, RPC and metadata requests to the services
   * (backend/gateway/forward.ts), mounted after the middleware chain and before the local data routes.
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

/**
 * The HTTP app of one service process: the trust check (only requests the gateway signed reach the data
 * API and RPC, with the gateway's principal), then the data, RPC and metadata routes and the Desk asset
 * routes (its UI remote) of the foundation. The security middleware chain runs at the gateway, not here.
 */
export function createServiceApp(ctx: AppContext, secret: string): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(handleError(ctx.log));
  app.notFound(notFound);
  app.use('*', trustGateway(secret));
  app.route('/', dataRoutes(ctx));
  app.route('/', deskRoutes(ctx));
  return app;
}
