import { Hono } from 'hono';
import { createApp } from '../app';
import type { Bus } from '../bus/bus';
import type { PlatformConfig } from '../config/schema';
import type { AppContext, Logger } from '../context';
import { type CreateContextOptions, createContext, defaultPublicUrl } from './context';
import type { AppEnv } from '../http/env';
import { createEncryptionPolicy } from '../security/encryption-policy';
import { type RunningServer, startServer } from '../server';
import { assetForwardRoutes } from '../desk/asset-forward';
import { BusServiceDirectory } from '../gateway/bus-directory';
import { connectBus, manifestTiming } from '../bus/connect-bus';
import { forwardRoutes } from '../gateway/forward';
import { readInternalSecret } from '../auth/internal-auth';
import { type IdempotencyRecord, KvIdempotencyStore } from '../security/idempotency/kv-idempotency-store';
import { publicDirectory } from '../gateway/public-directory';
import { RemoteDocTypes } from '../gateway/remote-doctypes';

/** KV bucket of the idempotency records gateways share (TTL `security.idempotency.ttl_seconds`). */
export const IDEMPOTENCY_BUCKET = 'platform_idempotency';

/** Options of {@link createGateway} and {@link startGateway}. */
export interface GatewayOptions {
  log?: Logger;
  /** Default: `PLATFORM_INTERNAL_SECRET`. */
  secret?: string;
  /** A bus to share (tests); default a NATS connection to `nats.url`, closed with the gateway. */
  bus?: Bus;
  /** Passed to createContext (tests: an in-memory database, fixture folders). */
  context?: CreateContextOptions;
}

/** A MACROSERVICE gateway app and what it holds. */
export interface Gateway {
  app: Hono<AppEnv>;
  ctx: AppContext;
  /** The bus-backed directory with the services' own addresses (what forwarding uses). */
  directory: BusServiceDirectory;
  close(): Promise<void>;
}

/**
 * Builds a MACROSERVICE gateway without listening: no local apps; discovery from the manifest bucket
 * (browsers see manifests whose `apiUrl` / `metaUrl` point at the gateway, see publicDirectory); data, RPC
 * and metadata requests forwarded to the services after the full middleware chain; idempotency records in
 * a shared KV bucket; the encryption policy fed with the services' DocTypes.
 */
export async function createGateway(config: PlatformConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const log = options.log ?? ((line: string) => console.error(line));
  const secret = options.secret ?? readInternalSecret();
  const { ttlMs, heartbeatMs } = manifestTiming(config);
  const closers: Array<() => Promise<void> | void> = [];
  const close = async () => {
    while (closers.length > 0) {
      await Promise.resolve(closers.pop()!()).catch((err) => log(`close failed: ${(err as Error).message}`));
    }
  };
  try {
    const bus = options.bus ?? (await connectBus(config, log, 'desk-gateway'));
    if (!options.bus) closers.push(() => bus.close());
    const directory = new BusServiceDirectory({
      bus,
      store: await bus.keyValue(config.nats.bucket, { ttlMs }),
      ttlMs,
      heartbeatMs,
      busSourceOfTruth: config.nats.bus_source_of_truth,
      log,
    });
    await directory.start();
    closers.push(() => directory.close());

    const gatewayConfig: PlatformConfig = { ...config, mode: 'macroservice', apps: [] };
    let ctx: AppContext | undefined;
    const publicUrl = () => ctx?.publicUrl ?? defaultPublicUrl(gatewayConfig);
    const shown = publicDirectory(directory, {
      gatewayUrl: publicUrl,
      proxyAssets: config.desk.mfe_proxy_enabled,
    });
    ctx = await createContext(gatewayConfig, { log, directory: shown, bus, ...options.context });
    const context = ctx;
    closers.push(() => context.close());

    const idempotencyTtlMs = config.security.idempotency.ttl_seconds * 1000;
    ctx.security.idempotency = new KvIdempotencyStore(
      await bus.keyValue<IdempotencyRecord>(IDEMPOTENCY_BUCKET, { ttlMs: idempotencyTtlMs }),
    );
    const timeoutMs = config.desk.upstream_timeout_ms;
    const doctypes = new RemoteDocTypes({ directory, timeoutMs, log });
    await doctypes.start();
    closers.push(() => doctypes.stop());
    const pe = config.security.payload_encryption;
    ctx.security.policy = createEncryptionPolicy({ mode: pe.mode, routes: pe.routes, doctypes });

    const forwarding = new Hono<AppEnv>();
    forwarding.route('/', forwardRoutes({ directory, secret, timeoutMs, log }));
    if (config.desk.mfe_proxy_enabled) forwarding.route('/', assetForwardRoutes({ directory, timeoutMs }));
    const app = createApp(ctx, { forwarding });
    return { app, ctx, directory, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A listening gateway. */
export interface RunningGateway extends Gateway {
  url: string;
  server: RunningServer;
}

/** `m serve --mode macroservice`: builds the gateway and serves it on `server.host` / `server.port`. */
export async function startGateway(
  config: PlatformConfig,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const gateway = await createGateway(config, options);
  try {
    const server = await startServer(gateway.app, {
      host: config.server.host,
      port: config.server.port,
      shutdownTimeoutMs: config.server.shutdown_timeout_ms,
    });
    gateway.ctx.publicUrl = defaultPublicUrl({ ...config, server: { ...config.server, port: server.port } });
    let closing: Promise<void> | undefined;
    return {
      ...gateway,
      url: server.url,
      server,
      close: () =>
        (closing ??= (async () => {
          await server.close();
          await gateway.close();
        })()),
    };
  } catch (err) {
    await gateway.close();
    throw err;
  }
}
