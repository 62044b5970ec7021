import { join } from 'node:path';
import { Hono } from 'hono';
import type { ServiceManifest } from '../../src/sdk/discovery/protocol';
import { isAppPath, loadAppFromPath } from '../apps/index';
import type { Bus } from '../bus/bus';
import type { PlatformConfig } from '../config/schema';
import type { AppContext, Logger } from '../context';
import { type CreateContextOptions, createContext, defaultPublicUrl } from '../create-context';
import { dataRoutes } from '../data/routes';
import { deskRoutes } from '../desk/routes';
import type { MonolithDirectory } from '../gateway/monolith-directory';
import type { AppEnv } from '../http/env';
import { handleError, notFound, PlatformError } from '../http/errors';
import { type RunningServer, startServer } from '../server';
import { connectBus, manifestTiming } from './connect-bus';
import { readInternalSecret, trustGateway } from './internal-auth';
import { type ManifestDraft, ManifestPublisher } from './manifest-publisher';

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

/** Options of {@link startService}. */
export interface StartServiceOptions {
  /** The app this process serves: a built-in name (`crm`) or the path of an app folder. */
  app: string;
  log?: Logger;
  /** Default: `PLATFORM_INTERNAL_SECRET`. */
  secret?: string;
  /** A bus to share (tests); default a NATS connection to `nats.url`, closed with the service. */
  bus?: Bus;
  /** Passed to createContext (tests: an in-memory database, fixture folders). */
  context?: CreateContextOptions;
}

/** A running service process. */
export interface RunningService {
  /** Its own base URL (`http://host:port`). */
  url: string;
  /** The manifest it publishes. */
  manifest(): ServiceManifest | undefined;
  /** Deletes its manifest from the bucket, then stops the server and releases everything. Idempotent. */
  close(): Promise<void>;
}

function draftOf(manifest: ServiceManifest): ManifestDraft {
  const { rev: _rev, ...draft } = manifest;
  return draft;
}

/**
 * `m serve --app <name>`: one service process. It installs only that app, keeps its state in
 * `<data_dir>/services/<app>` (its own database and keys), serves on `server.port` (0 = a free port), and
 * publishes its manifest (`apiUrl` `<own url>/api`, `url` its `remoteEntry.js` when built) on the bus with
 * a heartbeat; it re-publishes with a new `rev` when the remote appears or changes.
 */
export async function startService(
  config: PlatformConfig,
  options: StartServiceOptions,
): Promise<RunningService> {
  const log = options.log ?? ((line: string) => console.error(line));
  // An app given by its folder is named by its own module.
  const name = isAppPath(options.app) ? (await loadAppFromPath(options.app)).name : options.app;
  const secret = options.secret ?? readInternalSecret();
  const { ttlMs, heartbeatMs } = manifestTiming(config);
  const serviceConfig: PlatformConfig = {
    ...config,
    apps: [options.app],
    server: { ...config.server, data_dir: join(config.server.data_dir, 'services', name) },
  };
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    while (closers.length > 0)
      await closers.pop()!().catch((err) => log(`close failed: ${(err as Error).message}`));
  };
  try {
    const bus = options.bus ?? (await connectBus(config, log, `desk-service-${name}`));
    if (!options.bus) closers.push(() => bus.close());
    const ctx = await createContext(serviceConfig, { log, bus, ...options.context });
    closers.push(() => ctx.close());
    const server: RunningServer = await startServer(createServiceApp(ctx, secret), {
      host: config.server.host,
      port: config.server.port,
      shutdownTimeoutMs: config.server.shutdown_timeout_ms,
    });
    closers.push(() => server.close());
    ctx.publicUrl = defaultPublicUrl({ ...config, server: { ...config.server, port: server.port } });
    const directory = ctx.directory as MonolithDirectory;
    directory.refresh();
    const own = directory.get(name);
    if (!own) throw new PlatformError('config_invalid', `app ${name} is not installed`);

    const store = await bus.keyValue<ServiceManifest>(config.nats.bucket, { ttlMs });
    const publisher = new ManifestPublisher({ bus, store, heartbeatMs, log });
    await publisher.start(draftOf(own));
    closers.push(() => publisher.stop());
    // A remote built after the start (or rebuilt) changes the manifest: publish it with a new rev.
    const offChange = directory.subscribe((list) => {
      const next = list.find((m) => m.service === name);
      if (next) void publisher.update(draftOf(next)).catch(() => {});
    });
    const rescan = setInterval(() => directory.refresh(), heartbeatMs);
    rescan.unref?.();
    closers.push(async () => {
      clearInterval(rescan);
      offChange();
    });
    let closing: Promise<void> | undefined;
    return { url: server.url, manifest: () => publisher.manifest, close: () => (closing ??= close()) };
  } catch (err) {
    await close();
    throw err;
  }
}
