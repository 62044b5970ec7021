import { join, resolve } from 'node:path';
import { Hono } from 'hono';
import { type CreateApiAppOptions, createApiApp } from './api-app';
import { attachmentRoutes } from './attachments/routes';
import { auditRoutes } from './audit/routes';
import { INTERNAL_HEADERS, trustGateway } from './auth/internal-auth';
import type { AppContext } from './context';
import { peerLinkResolver } from './data/peer-links';
import { dataRoutes } from './data/routes';
import { deskRoutes } from './desk/routes';
import { exportRoutes } from './export/routes';
import type { ServiceDirectory } from './gateway/service-directory';
import { historyRoutes } from './history/routes';
import type { AppEnv } from './http/env';
import { handleError, notFound } from './http/errors';
import { importRoutes } from './import/routes';
import { idempotency, idempotencyWaitMs } from './middleware/idempotency';
import { payloadDecryption } from './middleware/payload-decryption';
import { permissionRoutes } from './permissions/routes';
import { releaseContractRoutes } from './releases/contract-route';
import { contractFingerprint } from './releases/fingerprint';
import { releaseFileRoutes } from './releases/release-file-routes';
import { localReleaseFiles } from './releases/release-file-store';
import { releaseRoutes } from './releases/routes';

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  /**
   * MACROSERVICE gateway: routes forwarding data, RPC and metadata requests to the services
   * (backend/gateway/forward.ts), mounted after the middleware chain and before the local data routes.
   */
  forwarding?: Hono<AppEnv>;
  /** Where whoami gets a principal's permissions (a gateway: from its services); see `createApiApp`. */
  permissionsOf?: CreateApiAppOptions['permissionsOf'];
  /** Where the users API finds the roles the rules name (a gateway: its services); see `createApiApp`. */
  rolesNamed?: CreateApiAppOptions['rolesNamed'];
  /** A MACROSERVICE gateway: its services' public keys for its JWKS; see `createApiApp`. */
  serviceKeys?: CreateApiAppOptions['serviceKeys'];
}

/**
 * Builds the platform's Hono app: the API (`createApiApp`: middleware chain and route groups) plus the
 * Desk's pages and assets. The same app answers `app.fetch(request)` in tests and behind
 * @hono/node-server in `m serve`.
 */
export function createApp(ctx: AppContext, options: CreateAppOptions = {}): Hono<AppEnv> {
  const releases = ctx.releases && releaseRoutes(ctx.releases);
  return createApiApp(ctx, { ...options, frontend: deskRoutes(ctx), ...(releases ? { releases } : {}) });
}

/**
 * The HTTP app of one service process: the trust check (only requests the gateway signed reach the data
 * API and RPC, with the gateway's principal), then the data, RPC and metadata routes, a record's attachments
 * and history, and the Desk asset routes (its UI remote) of the foundation. The security middleware chain
 * runs at the gateway, not here, except for decrypting bodies encrypted to this service's own key, and the
 * idempotency records of the writes this service stores, kept in its own database.
 */
export function createServiceApp(
  ctx: AppContext,
  secret: string,
  options: { peers?: () => ServiceDirectory | undefined } = {},
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(handleError(ctx.log));
  app.notFound(notFound);
  app.use('*', trustGateway(secret));
  // A body encrypted to this service's own key, forwarded unopened by the gateway, is decrypted here, with
  // this service's replay window (docs/security.md#encrypted-to-the-owning-service). Only for a request the
  // gateway signed (the trust check has refused any signature that does not verify), so nobody else can use
  // the service as a decryption oracle.
  const decryption = serviceDecryption(ctx);
  app.use('*', (c, next) =>
    c.req.header(INTERNAL_HEADERS.signature) === undefined ? next() : decryption(c, next),
  );
  // The Idempotency-Key records of the writes stored here, in this service's database, under the lookup key
  // the gateway computed and signed (docs/security.md#idempotency).
  app.use(
    '*',
    idempotency({
      store: ctx.security.idempotency,
      ttlMs: ctx.config.security.idempotency.ttl_seconds * 1000,
      waitMs: idempotencyWaitMs(ctx.config.desk.upstream_timeout_ms),
      scope: 'signed',
    }),
  );
  // Link fields to DocTypes of other services are checked with their owners, found in `peers`.
  const remoteLinks = peerLinkResolver({
    directory: options.peers ?? (() => undefined),
    secret,
    timeoutMs: ctx.config.desk.upstream_timeout_ms,
  });
  // Before the data routes: `/api/resource/:doctype/:name/attachments` is the record's, not a record.
  if (ctx.attachments) app.route('/', attachmentRoutes({ ...ctx, attachments: ctx.attachments }));
  // Before the data routes, whose `/:doctype/:name` would take `export.csv` for a record.
  app.route('/', exportRoutes(ctx));
  app.route('/', dataRoutes(ctx, { remoteLinks }));
  if (ctx.imports) app.route('/', importRoutes({ ...ctx, imports: ctx.imports }, { remoteLinks }));
  // A record's history and comments, kept with the record; the gateway forwards `/api/history/` here.
  if (ctx.history) app.route('/', historyRoutes({ ...ctx, history: ctx.history }));
  app.route('/', permissionRoutes({ permissions: ctx.permissions }));
  // The log of this service's reveals; the gateway merges the services' logs (docs/operators.md#the-audit-log).
  if (ctx.audit) app.route('/', auditRoutes({ audit: ctx.audit, log: ctx.log }));
  // The contract its gateways check a release against before promoting it, and its releases' files.
  const [own] = ctx.apps;
  if (own) {
    app.route('/', releaseContractRoutes(contractFingerprint(own)));
    const files = localReleaseFiles(join(resolve(ctx.config.server.data_dir), 'releases'));
    app.route('/', releaseFileRoutes(own.name, files));
  }
  app.route('/', deskRoutes(ctx));
  return app;
}

/**
 * A service's PayloadDecryptionMiddleware: opens `application/jose` bodies with the service's own keys and
 * replay window. It refuses no plaintext: the gateway enforced the mode, and forwards as JSON what it
 * decrypted with its own key.
 */
function serviceDecryption(ctx: AppContext) {
  const { keys, replay, policy } = ctx.security;
  return payloadDecryption({
    policy: { mode: policy.mode, routes: policy.routes, requiresEncryption: () => false },
    keys,
    replay,
    maxJweBytes: ctx.config.security.payload_encryption.max_jwe_bytes,
    maxBodyBytes: ctx.config.server.max_body_bytes,
  });
}
