import { Hono } from 'hono';
import { trustGateway } from './auth/internal-auth';
import { authRoutes } from './auth/routes';
import type { AppContext } from './context';
import { dataRoutes } from './data/routes';
import { deskRoutes } from './desk/routes';
import { discoveryLimits } from './gateway/oracle';
import { gatewayRoutes } from './gateway/routes';
import type { AppEnv } from './http/env';
import { handleError, notFound } from './http/errors';
import { middlewareChain } from './middleware/chain';
import { openapiRoutes } from './openapi/routes';
import { securityRoutes } from './security/routes';

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  /**
   * MACROSERVICE gateway: routes forwarding data, RPC and metadata requests to the services
   * (backend/gateway/forward.ts), mounted after the middleware chain and before the local data routes.
   */
  forwarding?: Hono<AppEnv>;
}

/**
 * Builds the platform's Hono app: the priority-ordered middleware chain (declared once in
 * `middleware/chain.ts`), then the route groups. The same app answers `app.fetch(request)` in tests and
 * MSW handlers, and behind @hono/node-server in `m serve`.
 */
export function createApp(ctx: AppContext, options: CreateAppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(handleError(ctx.log));
  app.notFound(notFound);
  for (const middleware of middlewareChain(ctx)) app.use('*', middleware);
  const { keys, policy, auth } = ctx.security;
  const payloadEncryption = ctx.config.security.payload_encryption;
  app.route('/', securityRoutes({ payloadEncryption, keys, policy }));
  app.route('/', authRoutes({ auth, sessionTtlSeconds: ctx.config.security.session.ttl_seconds }));
  app.route('/', gatewayRoutes({ directory: ctx.directory, limits: discoveryLimits(ctx.config) }));
  if (options.forwarding) app.route('/', options.forwarding);
  app.route('/', dataRoutes(ctx));
  app.route('/', deskRoutes(ctx));
  // Last: the OpenAPI document lists every route registered above (and fails the start on a flagged DTO).
  app.route('/', openapiRoutes(ctx, app.routes));
  return app;
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
