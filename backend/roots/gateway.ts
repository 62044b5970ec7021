import { Hono } from 'hono';
import { createApp } from '../app';
import { gatewayAuditRoutes } from '../audit/gateway-routes';
import { readInternalSecret } from '../auth/internal-auth';
import { type AttemptState, KvAttemptStore } from '../auth/login-attempts';
import type { Bus } from '../bus/bus';
import { connectBus, manifestTiming } from '../bus/connect-bus';
import type { PlatformConfig } from '../config/schema';
import type { AppContext, Logger } from '../context';
import { assetForwardRoutes } from '../desk/asset-forward';
import { BusServiceDirectory } from '../gateway/bus-directory';
import { forwardRoutes } from '../gateway/forward';
import { publicDirectory } from '../gateway/public-directory';
import { RemoteDocTypes } from '../gateway/remote-doctypes';
import type { AppEnv } from '../http/env';
import type { CleanupStack } from '../lifecycle/cleanup-stack';
import { remotePermissionSource, remoteRoleSource } from '../permissions/remote-permissions';
import { openGatewayReleases } from '../releases/open-releases';
import { releaseAssetRoutes } from '../releases/release-assets';
import { releaseDirectory } from '../releases/release-directory';
import type { ReleaseService } from '../releases/release-service';
import { RemoteContracts } from '../releases/remote-contracts';
import { remoteReleaseFiles } from '../releases/remote-release-files';
import { KEK_ENV, keyEncryptionKeyFromEnv } from '../security/keys/key-encryption-key';
import type { KeyStore } from '../security/keys/key-store';
import { KEY_RING_BUCKET, KvKeyStore, type SharedKeyRing } from '../security/keys/kv-key-store';
import { KvSeenSet, SEEN_JWE_BUCKET } from '../security/replay/kv-seen-set';
import type { RunningServer } from '../server';
import { buildContext, type ContextOptions, defaultPublicUrl, refuseDefaultAdminPassword } from './context';
import { bindThenServe, onCleanupStack } from './start';

/** KV bucket of the failed sign-in counters every gateway shares (docs/security.md#login-throttling). */
export const LOGIN_ATTEMPTS_BUCKET = 'login_attempts';
/** Idle counters are forgotten after the longest window plus the longest lock-out. */
const LOGIN_ATTEMPTS_TTL_MS = 30 * 60_000;

/** Options of {@link createGateway} and {@link startGateway}. */
export interface GatewayOptions {
  log?: Logger;
  /** Default: `PLATFORM_INTERNAL_SECRET`. */
  secret?: string;
  /** A bus to share (tests); default a NATS connection to `nats.url`, closed with the gateway. */
  bus?: Bus;
  /** What the context may take from the caller (tests: an in-memory database, fixture folders). */
  context?: ContextOptions;
  /**
   * Environment the secrets are read from (`PLATFORM_INTERNAL_SECRET`, `PLATFORM_KEY_ENCRYPTION_KEY`,
   * `PLATFORM_ADMIN_PASSWORD`); default `process.env`.
   */
  env?: NodeJS.ProcessEnv;
}

/**
 * The key ring the deployment's gateways share (NATS KV, private keys wrapped with the key-encryption key)
 * when `PLATFORM_KEY_ENCRYPTION_KEY` or `_FILE` is set; otherwise undefined (this gateway's own key files,
 * fine for a single gateway) with a warning, since a JWE made from this gateway's JWKS then fails on another.
 */
async function sharedKeyRing(
  config: PlatformConfig,
  bus: Bus,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
  stack: CleanupStack,
): Promise<KeyStore | undefined> {
  const kek = keyEncryptionKeyFromEnv(env);
  const pe = config.security.payload_encryption;
  if (!kek) {
    log(
      `WARNING: ${KEK_ENV} is not set: this gateway keeps its own key ring; several gateways need a shared one`,
    );
    return undefined;
  }
  // Follows the ring with a KV watch, so every gateway sees a rotation well within the JWKS max-age.
  const ring = await KvKeyStore.open({
    store: await bus.keyValue<SharedKeyRing>(KEY_RING_BUCKET, { ttlMs: 0 }),
    kek,
    graceMs: pe.key_grace_seconds * 1000,
    log,
  });
  stack.defer(() => ring.close());
  return ring;
}

/** A MACROSERVICE gateway app and what it holds. */
export interface Gateway {
  app: Hono<AppEnv>;
  ctx: AppContext;
  /** The bus-backed directory with the services' own addresses (what forwarding uses). */
  directory: BusServiceDirectory;
  /** Releases everything the root opened, in reverse order. Idempotent. */
  close(): Promise<void>;
}

/** Builds the gateway on `stack`: what {@link createGateway} returns, before its own close is attached. */
async function buildGateway(
  config: PlatformConfig,
  options: GatewayOptions,
  stack: CleanupStack,
): Promise<Omit<Gateway, 'close'>> {
  const log = options.log ?? ((line: string) => console.error(line));
  const secret = options.secret ?? readInternalSecret(options.env ?? process.env);
  const { ttlMs, heartbeatMs } = manifestTiming(config);
  let bus = options.bus;
  if (!bus) {
    const connected = await connectBus(config, log, 'desk-gateway');
    stack.defer(() => connected.close());
    bus = connected;
  }
  const directory = new BusServiceDirectory({
    bus,
    store: await bus.keyValue(config.nats.bucket, { ttlMs }),
    ttlMs,
    heartbeatMs,
    busSourceOfTruth: config.nats.bus_source_of_truth,
    log,
  });
  await directory.start();
  stack.defer(() => directory.close());

  const timeoutMs = config.desk.upstream_timeout_ms;
  const doctypes = new RemoteDocTypes({ directory, timeoutMs, log });
  await doctypes.start();
  stack.defer(() => doctypes.stop());

  // One replay seen-set for every gateway: a token replayed to another gateway is refused too.
  const pe = config.security.payload_encryption;
  const seenJwes = new KvSeenSet(
    await bus.keyValue<number>(SEEN_JWE_BUCKET, {
      ttlMs: (pe.replay_window_seconds + 2 * pe.clock_skew_seconds) * 1000,
    }),
  );

  // Releases of the services' remotes: records in the database the gateways share, checked against the
  // contract each service reports (docs/operators.md#releases-in-macroservice).
  const contracts = new RemoteContracts({ directory, secret, timeoutMs, log });
  await contracts.start();
  stack.defer(() => contracts.stop());
  let releases: ReleaseService | undefined;

  const gatewayConfig: PlatformConfig = { ...config, mode: 'macroservice', apps: [] };
  const contextOptions: ContextOptions = { log, env: options.env, ...options.context };
  contextOptions.keys ??= await sharedKeyRing(config, bus, log, options.env ?? process.env, stack);
  const gatewayUrl = contextOptions.publicUrl ?? defaultPublicUrl(gatewayConfig);
  const ctx = await buildContext(
    gatewayConfig,
    { ...contextOptions, publicUrl: gatewayUrl },
    {
      bus,
      directory: () => {
        const shown = publicDirectory(directory, {
          gatewayUrl: () => gatewayUrl,
          proxyAssets: config.desk.mfe_proxy_enabled,
        });
        return releases ? releaseDirectory(shown, releases, () => gatewayUrl) : shown;
      },
      releases: async (db) => {
        releases = await openGatewayReleases(config, db, {
          bus,
          running: (service) => contracts.running(service),
          files: remoteReleaseFiles({ directory, secret, timeoutMs }),
          heartbeatMs,
          log,
          stack,
        });
        return releases;
      },
      policyDoctypes: doctypes,
      seenJwes,
      // Every gateway counts failed sign-ins in the same bucket, so a second gateway is no second chance.
      loginAttempts: new KvAttemptStore(
        await bus.keyValue<AttemptState>(LOGIN_ATTEMPTS_BUCKET, { ttlMs: LOGIN_ATTEMPTS_TTL_MS }),
      ),
    },
    stack,
  );
  await refuseDefaultAdminPassword(ctx);

  const forwarding = new Hono<AppEnv>();
  const debug = config.server.log_level === 'debug' ? log : undefined;
  forwarding.route('/', forwardRoutes({ directory, secret, timeoutMs, log, debug }));
  // The audit log of reveals, kept by each service, merged for the caller (docs/operators.md#the-audit-log).
  forwarding.route('/', gatewayAuditRoutes({ directory, secret, timeoutMs, log }));
  // `/desk/assets/<service>/<version>/...`: a release's file, fetched from the service keeping it.
  if (releases) forwarding.route('/', releaseAssetRoutes(releases));
  if (config.desk.mfe_proxy_enabled) forwarding.route('/', assetForwardRoutes({ directory, timeoutMs }));
  // whoami's permissions come from the services, each computing them from the roles this gateway signs.
  const permissionsOf = remotePermissionSource({ directory, secret, timeoutMs });
  // The users API's roles come from the services' rules too.
  const rolesNamed = remoteRoleSource({ directory, secret, timeoutMs });
  // Each live service's own public keys join this gateway's JWKS: bodies for a service's DocTypes are
  // encrypted to it and forwarded unopened (docs/security.md#encrypted-to-the-owning-service).
  const serviceKeys = () => directory.list().flatMap((m) => m.encryptionKeys ?? []);
  return { app: createApp(ctx, { forwarding, permissionsOf, rolesNamed, serviceKeys }), ctx, directory };
}

/**
 * The MACROSERVICE gateway composition root, without a listener: no local apps; discovery from the manifest
 * bucket (browsers see manifests whose `apiUrl` / `metaUrl` point at the gateway, see publicDirectory);
 * data, RPC and metadata requests forwarded to the services after the full middleware chain; idempotency
 * records of forwarded writes kept by the service storing them (in the write's transaction), those of the
 * gateway's own routes in its database; the encryption policy fed with the services' DocTypes.
 */
export async function createGateway(config: PlatformConfig, options: GatewayOptions = {}): Promise<Gateway> {
  return onCleanupStack(options.log, (stack) => buildGateway(config, options, stack));
}

/** A listening gateway. */
export interface RunningGateway extends Gateway {
  url: string;
  server: RunningServer;
}

/**
 * `m serve --mode macroservice`: binds `server.host` / `server.port` first (so the public URL carries the
 * port actually bound when `server.public_url` is not set), then builds the gateway and serves it.
 */
export async function startGateway(
  config: PlatformConfig,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  return bindThenServe(config, options.log, (boundUrl, stack) => {
    const publicUrl = options.context?.publicUrl ?? boundUrl;
    return buildGateway(config, { ...options, context: { ...options.context, publicUrl } }, stack);
  });
}
