import { join, resolve } from 'node:path';
import type { ServiceManifest } from '../../src/protocol';
import { createServiceApp } from '../app';
import { isAppPath, loadAppFromPath } from '../apps/index';
import { readInternalSecret } from '../auth/internal-auth';
import type { Bus } from '../bus/bus';
import { connectBus, manifestTiming } from '../bus/connect-bus';
import type { PlatformConfig } from '../config/schema';
import type { Logger } from '../context';
import { serviceDataDir } from '../data-dir/data-dir';
import { BusServiceDirectory } from '../gateway/bus-directory';
import { type ManifestDraft, ManifestPublisher } from '../gateway/manifests/manifest-publisher';
import { createMonolithDirectory, type MonolithDirectory } from '../gateway/monolith-directory';
import { PlatformError } from '../http/errors';
import { FileKeyStore } from '../security/keys/file-key-store';
import { ServiceKeyStore } from '../security/keys/service-key-store';
import { boundPublicUrl, buildContext, type ContextOptions } from './context';
import { bindServer, onCleanupStack } from './start';

/** Options of {@link startService}. */
export interface StartServiceOptions {
  /** The app this process serves: a built-in name (`crm`) or the path of an app folder. */
  app: string;
  log?: Logger;
  /** Default: `PLATFORM_INTERNAL_SECRET` of the context's `env`. */
  secret?: string;
  /** A bus to share (tests); default a NATS connection to `nats.url`, closed with the service. */
  bus?: Bus;
  /** What the context may take from the caller (tests: an in-memory database, fixture folders). */
  context?: ContextOptions;
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

/** The kids of a manifest's published keys, in order: what changes when the service's ring rotates. */
function kidsOf(draft: ManifestDraft): string {
  return (draft.encryptionKeys ?? []).map((k) => k.kid).join(' ');
}

/**
 * `m serve --app <name>`, the service composition root: one service process. It installs only that app,
 * keeps its state in `<data_dir>/services/<app>` (its own database and keys), binds `server.port` (0 = a
 * free port) before building its context (whose public URL is the address bound), and publishes its
 * manifest (`apiUrl` `<own url>/api`, `url` its `remoteEntry.js` when built, `encryptionKeys` the public
 * halves of its own key ring, kids `svc:<app>:...`) on the bus with a heartbeat; it re-publishes with a new
 * `rev` when the remote appears or changes, or when its keys rotate (`m keys rotate` on its data directory).
 */
export async function startService(
  config: PlatformConfig,
  options: StartServiceOptions,
): Promise<RunningService> {
  const log = options.log ?? ((line: string) => console.error(line));
  // An app given by its folder is named by its own module.
  const name = isAppPath(options.app) ? (await loadAppFromPath(options.app)).name : options.app;
  const secret = options.secret ?? readInternalSecret(options.context?.env ?? process.env);
  const { ttlMs, heartbeatMs } = manifestTiming(config);
  const serviceConfig: PlatformConfig = {
    ...config,
    apps: [options.app],
    server: { ...config.server, data_dir: serviceDataDir(config.server.data_dir, name) },
  };
  return onCleanupStack(log, async (stack) => {
    let bus = options.bus;
    if (!bus) {
      const connected = await connectBus(config, log, `desk-service-${name}`);
      stack.defer(() => connected.close());
      bus = connected;
    }
    const server = await bindServer(config, stack);
    // Its own key pair: request bodies for its DocTypes are encrypted to it and cross the gateway unopened
    // (docs/security.md#encrypted-to-the-owning-service).
    const keys = new ServiceKeyStore(
      options.context?.keys ??
        (await FileKeyStore.open({
          dir: join(resolve(serviceConfig.server.data_dir), 'keys'),
          graceMs: config.security.payload_encryption.key_grace_seconds * 1000,
        })),
      name,
    );
    let directory: MonolithDirectory | undefined;
    const ctx = await buildContext(
      serviceConfig,
      {
        log,
        ...options.context,
        keys,
        publicUrl: options.context?.publicUrl ?? boundPublicUrl(config, server.port),
      },
      {
        bus,
        // Users live at the gateway: a service neither creates nor announces an Administrator of its own.
        users: false,
        directory: (apps, appsDir, publicUrl) => {
          directory = createMonolithDirectory({ apps, appsDir, publicUrl: () => publicUrl });
          return directory;
        },
      },
      stack,
    );
    // The other services, for Link fields to their DocTypes: the same manifests the gateway routes by.
    let peers: BusServiceDirectory | undefined;
    server.serve(createServiceApp(ctx, secret, { peers: () => peers }));
    // Once serving, stopping the server comes before releasing the context the requests use.
    stack.defer(() => server.close());
    const own = directory?.get(name);
    if (!directory || !own) throw new PlatformError('config_invalid', `app ${name} is not installed`);
    const scanned = directory;

    const store = await bus.keyValue<ServiceManifest>(config.nats.bucket, { ttlMs });
    const peerDirectory = new BusServiceDirectory({
      bus,
      store: await bus.keyValue(config.nats.bucket, { ttlMs }),
      ttlMs,
      heartbeatMs,
      busSourceOfTruth: false,
      log,
    });
    await peerDirectory.start();
    stack.defer(() => peerDirectory.close());
    peers = peerDirectory;
    const publisher = new ManifestPublisher({ bus, store, heartbeatMs, log });
    let scannedDraft = draftOf(own);
    let published: ManifestDraft = { ...scannedDraft, encryptionKeys: await keys.publicKeys() };
    await publisher.start(published);
    stack.defer(() => publisher.stop());
    const republish = async (draft: ManifestDraft) => {
      published = draft;
      await publisher.update(draft);
    };
    // A remote built after the start (or rebuilt) changes the manifest: publish it with a new rev.
    const offChange = scanned.subscribe((list) => {
      const next = list.find((m) => m.service === name);
      if (!next) return;
      scannedDraft = draftOf(next);
      void republish({ ...scannedDraft, encryptionKeys: published.encryptionKeys }).catch(() => {});
    });
    // So does a rotation of its keys: the gateways list the new key in their JWKS within a heartbeat.
    const followKeys = async () => {
      const encryptionKeys = await keys.publicKeys();
      const next = { ...scannedDraft, encryptionKeys };
      if (kidsOf(next) !== kidsOf(published)) await republish(next);
    };
    const rescan = setInterval(() => {
      scanned.refresh();
      void followKeys().catch((err: Error) => log(`keys: re-reading the key ring failed (${err.message})`));
    }, heartbeatMs);
    rescan.unref?.();
    stack.defer(() => {
      clearInterval(rescan);
      offChange();
    });
    return { url: server.url, manifest: () => publisher.manifest };
  });
}
