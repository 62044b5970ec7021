import { Hono } from 'hono';
import type { EncryptionJwk } from '../src/protocol';
import { attachmentRoutes } from './attachments/routes';
import { auditRoutes } from './audit/routes';
import { authRoutes } from './auth/routes';
import { userRoutes } from './auth/user-routes';
import { type PermissionSource, whoamiRoutes } from './auth/whoami';
import type { AppContext } from './context';
import { dataRoutes } from './data/routes';
import { exportRoutes } from './export/routes';
import { discoveryLimits } from './gateway/oracle';
import { gatewayRoutes } from './gateway/routes';
import { historyRoutes } from './history/routes';
import { CachedRouter } from './http/cached-router';
import type { AppEnv, Principal } from './http/env';
import { handleError, notFound } from './http/errors';
import { importRoutes } from './import/routes';
import { metricsRoutes } from './metrics/routes';
import { securityChain } from './middleware/chain';
import { openapiRoutes } from './openapi/routes';
import { permissionRoutes, rolesOf } from './permissions/routes';
import { searchRoutes } from './search/routes';
import { securityRoutes } from './security/routes';

/**
 * What the API app uses of a process: configuration, log, security, the rules, the directory and the data
 * of the installed apps. No database handle, folders or bus: the offline mocks build exactly this over
 * in-memory stores, and nothing of a server's file system reaches the routes.
 */
export type ApiContext = Pick<
  AppContext,
  | 'config'
  | 'log'
  | 'security'
  | 'permissions'
  | 'directory'
  | 'records'
  | 'recordObservers'
  | 'audit'
  | 'history'
  | 'attachments'
  | 'metrics'
  | 'imports'
  | 'apps'
  | 'doctypes'
  | 'rpc'
>;

/** Options of {@link createApiApp}. */
export interface CreateApiAppOptions {
  /**
   * MACROSERVICE gateway: routes forwarding data, RPC and metadata requests to the services
   * (backend/gateway/forward.ts), mounted after the middleware chain and before the local data routes.
   */
  forwarding?: Hono<AppEnv>;
  /** Routes serving the Desk's pages and assets (backend/desk), mounted after the API routes. */
  frontend?: Hono<AppEnv>;
  /**
   * The releases API and the per-user choice of release in discovery answers (backend/releases), mounted
   * before the discovery routes it personalises.
   */
  releases?: Hono<AppEnv>;
  /**
   * Where whoami gets a principal's permissions; default this process's rules (MONOLITH). A MACROSERVICE
   * gateway asks its services (backend/permissions/remote-permissions.ts).
   */
  permissionsOf?: PermissionSource;
  /**
   * Where the users API finds the roles the rules name; default this process's rules (MONOLITH). A
   * MACROSERVICE gateway asks its services.
   */
  rolesNamed?: (principal: Principal) => Promise<readonly string[]>;
  /** A MACROSERVICE gateway: its services' public keys, listed in its JWKS after its own. */
  serviceKeys?: () => readonly EncryptionJwk[];
}

/**
 * The platform's API as one Hono app: the priority-ordered middleware chain (declared once in
 * `middleware/chain.ts`, mounted as one middleware), then the route groups. Nothing here reads files or loads a Node module, so the
 * offline mocks run this very app inside a browser (mocks/support/create-mock-backend.ts); the server adds
 * the Desk's file-serving routes through `frontend` (see `createApp`).
 */
export function createApiApp(ctx: ApiContext, options: CreateApiAppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ router: new CachedRouter() });
  const onError = handleError(ctx.log);
  app.onError(onError);
  app.notFound(notFound);
  // First, so that `/metrics` counts every answer, the chain's refusals included.
  if (ctx.metrics) app.use('*', ctx.metrics.requests.middleware);
  // The eight middleware of the table, folded into one (`securityChain`): one handler on every path.
  app.use('*', securityChain(ctx, onError));
  const { keys, policy, auth, users, loginThrottle, hashGate } = ctx.security;
  const payloadEncryption = ctx.config.security.payload_encryption;
  app.route('/', securityRoutes({ payloadEncryption, keys, policy, serviceKeys: options.serviceKeys }));
  if (ctx.metrics) app.route('/', metricsRoutes({ registry: ctx.metrics.registry, log: ctx.log }));
  app.route(
    '/',
    authRoutes({
      auth,
      sessionTtlSeconds: ctx.config.security.session.ttl_seconds,
      publicUrl: ctx.config.server.public_url,
      loginThrottle,
      hashGate,
      trustedProxies: ctx.config.server.trusted_proxies,
    }),
  );
  const permissionsOf =
    options.permissionsOf ?? ((principal) => ctx.permissions.permissionMap(rolesOf(principal)));
  app.route('/', whoamiRoutes({ permissionsOf, csrfToken: (session) => auth.csrfToken(session) }));
  const knownRoles = options.rolesNamed ?? (() => ctx.permissions.roles());
  app.route('/', userRoutes({ users, knownRoles }));
  // The rules live where the data does: here in MONOLITH; a gateway forwards them to the owning service.
  if (!options.forwarding) app.route('/', permissionRoutes({ permissions: ctx.permissions }));
  // The audit log of reveals lives with the data it audits (MONOLITH; each MACROSERVICE service).
  if (!options.forwarding && ctx.audit) app.route('/', auditRoutes({ audit: ctx.audit, log: ctx.log }));
  // A record's history and comments live with the record (MONOLITH; each MACROSERVICE service).
  if (!options.forwarding && ctx.history) app.route('/', historyRoutes({ ...ctx, history: ctx.history }));
  // Imports create records where they live (MONOLITH; each MACROSERVICE service).
  if (!options.forwarding && ctx.imports) app.route('/', importRoutes({ ...ctx, imports: ctx.imports }));
  // A record's attachments live with the record (MONOLITH; each MACROSERVICE service, through `forwarding`).
  if (!options.forwarding && ctx.attachments)
    app.route('/', attachmentRoutes({ ...ctx, attachments: ctx.attachments }));
  if (options.releases) app.route('/', options.releases);
  app.route('/', gatewayRoutes({ directory: ctx.directory, limits: discoveryLimits(ctx.config) }));
  if (options.forwarding) app.route('/', options.forwarding);
  // Before the data routes, whose `/:doctype/:name` would take `export.csv` for a record (MONOLITH; a
  // MACROSERVICE gateway forwards it above, streamed, to the owning service).
  if (!options.forwarding) app.route('/', exportRoutes(ctx));
  app.route('/', dataRoutes(ctx));
  // The search asks every service through this same app, so each part passes the security chain and the
  // routing (local or forwarded) of an ordinary request.
  app.route(
    '/',
    searchRoutes({
      services: () => ctx.directory.list(),
      dispatch: (request, env) => Promise.resolve(app.fetch(request, env)),
      timeoutMs: ctx.config.desk.upstream_timeout_ms,
    }),
  );
  if (options.frontend) app.route('/', options.frontend);
  // Last: the OpenAPI document lists every route registered above (and fails the start on a flagged DTO).
  app.route('/', openapiRoutes(ctx, app.routes));
  return app;
}
