import { Hono } from 'hono';
import { authRoutes } from './auth/routes';
import type { AppContext } from './context';
import { dataRoutes } from './data/routes';
import { discoveryLimits } from './gateway/oracle';
import { gatewayRoutes } from './gateway/routes';
import type { AppEnv } from './http/env';
import { handleError, notFound } from './http/errors';
import { middlewareChain } from './middleware/chain';
import { openapiRoutes } from './openapi/routes';
import { securityRoutes } from './security/routes';

/** Options of {@link createApiApp}. */
export interface CreateApiAppOptions {
  /**
   * MACROSERVICE gateway: routes forwarding data, RPC and metadata requests to the services
   * (backend/gateway/forward.ts), mounted after the middleware chain and before the local data routes.
   */
  forwarding?: Hono<AppEnv>;
  /** Routes serving the Desk's pages and assets (backend/desk), mounted after the API routes. */
  frontend?: Hono<AppEnv>;
}

/**
 * The platform's API as one Hono app: the priority-ordered middleware chain (declared once in
 * `middleware/chain.ts`), then the route groups. Nothing here reads files or loads a Node module, so the
 * offline mocks run this very app inside a browser (mocks/support/create-mock-backend.ts); the server adds
 * the Desk's file-serving routes through `frontend` (see `createApp`).
 */
export function createApiApp(ctx: AppContext, options: CreateApiAppOptions = {}): Hono<AppEnv> {
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
  if (options.frontend) app.route('/', options.frontend);
  // Last: the OpenAPI document lists every route registered above (and fails the start on a flagged DTO).
  app.route('/', openapiRoutes(ctx, app.routes));
  return app;
}
