import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadInstalledApps } from '../apps';
import { createRpcRegistry } from '../apps/rpc-registry';
import type { Bus } from '../bus/bus';
import { InProcessBus } from '../bus/in-process-bus';
import type { PlatformConfig } from '../config/schema';
import type { AppContext, Logger } from '../context';
import { DbRecordStore } from '../data/record-store';
import type { RecordStore } from '../data/records';
import type { Database } from '../db/database';
import { openDatabase } from '../db/open-database';
import { createDocTypeRegistry } from '../doctypes/registry';
import { createMonolithDirectory } from '../gateway/monolith-directory';
import type { ServiceDirectory } from '../gateway/service-directory';
import type { CleanupStack } from '../lifecycle/cleanup-stack';
import type { DocTypeLookup } from '../security/encryption-policy';
import type { IdempotencyStore } from '../security/idempotency/idempotency-store';
import type { KeyStore } from '../security/keys/key-store';
import { createSecurityContext } from '../security/security-context';

/** The repository root (this file lives in `<root>/backend/roots/`). */
export const ROOT_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** What every root lets its caller inject (tests: in-memory database and keys, fixture folders). */
export interface ContextOptions {
  log?: Logger;
  /** A database opened by the caller (tests: in-memory PGlite); it is NOT closed with the process. */
  database?: Database;
  /** Folder of the installed apps; default `backend/apps`. */
  appsDir?: string;
  /** Build output folder; default `dist`. */
  distDir?: string;
  /** Folder of the shell's `index.html` template; default `public`. */
  publicDir?: string;
  /** Payload-encryption keys (tests: a MemoryKeyStore); default the key files under `<data_dir>/keys`. */
  keys?: KeyStore;
  /**
   * Base URL browsers reach this process at; default {@link defaultPublicUrl}. The `start*` roots pass the
   * address they bound when `server.public_url` is not configured.
   */
  publicUrl?: string;
  /** Where records live; default the database's `records` table. */
  records?: RecordStore;
}

/** The parts that differ between process kinds, chosen by the root before the context is built. */
export interface ContextParts {
  /** The bus; it is NOT closed with the context (the root that opened it defers its close). */
  bus: Bus;
  /** Builds the service directory from the installed apps and the public URL; default the MONOLITH scan. */
  directory?: (apps: AppContext['apps'], appsDir: string, publicUrl: string) => ServiceDirectory;
  /** Default: the database store with its background sweep. */
  idempotency?: IdempotencyStore;
  /** Where the encryption policy looks flagged fields up; default the local DocType registry. */
  policyDoctypes?: DocTypeLookup;
}

/** `server.public_url`, else `http://<host>:<port>` (a wildcard bind address becomes `localhost`). */
export function defaultPublicUrl(config: PlatformConfig): string {
  if (config.server.public_url) return config.server.public_url.replace(/\/+$/, '');
  const host = ['0.0.0.0', '::', '[::]'].includes(config.server.host) ? 'localhost' : config.server.host;
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${shown}:${config.server.port}`;
}

/** {@link defaultPublicUrl} for a server bound to `port` (what `server.port` 0 turned into). */
export function boundPublicUrl(config: PlatformConfig, port: number): string {
  return defaultPublicUrl({ ...config, server: { ...config.server, port } });
}

/** A fresh in-process bus for a process that shares nothing with others, closed with `stack`. */
export function inProcessBus(stack: CleanupStack): Bus {
  const bus = new InProcessBus();
  stack.defer(() => bus.close());
  return bus;
}

/**
 * Builds a complete AppContext for a root: installs the configured apps, opens and migrates the database
 * (unless one is given), builds the DocType and RPC registries, the security services and the service
 * directory. What it opens is deferred on `stack`, whose `close` becomes `ctx.close`; on a failure the
 * caller closes `stack`.
 */
export async function buildContext(
  config: PlatformConfig,
  options: ContextOptions,
  parts: ContextParts,
  stack: CleanupStack,
): Promise<AppContext> {
  const log = options.log ?? ((line: string) => console.error(line));
  const apps = await loadInstalledApps(config.apps);
  const doctypes = createDocTypeRegistry(apps);
  const rpc = createRpcRegistry(apps);
  let db = options.database;
  if (!db) {
    const opened = await openDatabase({
      dataDir: config.server.data_dir,
      databaseUrl: config.server.database_url,
    });
    stack.defer(() => opened.close());
    db = opened;
  }
  const appsDir = options.appsDir ?? join(ROOT_DIR, 'backend', 'apps');
  const security = await createSecurityContext({
    config,
    db,
    log,
    doctypes: parts.policyDoctypes ?? doctypes,
    keys: options.keys,
    idempotency: parts.idempotency,
  });
  stack.defer(() => security.close());
  const publicUrl = options.publicUrl ?? defaultPublicUrl(config);
  const directory = parts.directory
    ? parts.directory(apps, appsDir, publicUrl)
    : createMonolithDirectory({ apps, appsDir, publicUrl: () => publicUrl });
  return Object.freeze({
    config,
    log,
    db,
    records: options.records ?? new DbRecordStore(db),
    apps,
    doctypes,
    rpc,
    directory,
    publicUrl,
    appsDir,
    distDir: options.distDir ?? join(ROOT_DIR, 'dist'),
    publicDir: options.publicDir ?? join(ROOT_DIR, 'public'),
    security: Object.freeze(security),
    bus: parts.bus,
    close: () => stack.close(),
  });
}
