import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadInstalledApps } from './apps';
import { createRpcRegistry } from './apps/rpc-registry';
import type { Bus } from './bus/bus';
import { InProcessBus } from './bus/in-process-bus';
import type { PlatformConfig } from './config/schema';
import type { AppContext, Logger } from './context';
import { DbRecordStore } from './data/record-store';
import type { RecordStore } from './data/records';
import type { Database } from './db/database';
import { openDatabase } from './db/open-database';
import { createDocTypeRegistry } from './doctypes/registry';
import { createMonolithDirectory } from './gateway/monolith-directory';
import type { ServiceDirectory } from './gateway/service-directory';
import type { KeyStore } from './security/keys/key-store';
import { createSecurityContext } from './security/security-context';

/** The repository root (this file lives in `<root>/backend/`). */
export const ROOT_DIR = fileURLToPath(new URL('../', import.meta.url));

/** Options of {@link createContext}: everything environmental is injectable for tests. */
export interface CreateContextOptions {
  log?: Logger;
  /** A database opened by the caller (tests: in-memory PGlite); it is NOT closed by `ctx.close()`. */
  database?: Database;
  /** Folder of the installed apps; default `backend/apps`. */
  appsDir?: string;
  /** Build output folder; default `dist`. */
  distDir?: string;
  /** Folder of the shell's `index.html` template; default `public`. */
  publicDir?: string;
  /** A directory built by the caller (MACROSERVICE: the bus-backed one); default the MONOLITH scan. */
  directory?: ServiceDirectory;
  /** Payload-encryption keys (tests: a MemoryKeyStore); default the key files under `<data_dir>/keys`. */
  keys?: KeyStore;
  /** Where records live; default the database's `records` table. */
  records?: RecordStore;
  /** The bus (MACROSERVICE: the NATS one, not closed by `ctx.close()`); default a fresh in-process bus. */
  bus?: Bus;
}

/** `server.public_url`, else `http://<host>:<port>` (a wildcard bind address becomes `localhost`). */
export function defaultPublicUrl(config: PlatformConfig): string {
  if (config.server.public_url) return config.server.public_url.replace(/\/+$/, '');
  const host = ['0.0.0.0', '::', '[::]'].includes(config.server.host) ? 'localhost' : config.server.host;
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${shown}:${config.server.port}`;
}

/**
 * Builds the AppContext: installs the configured apps, opens and migrates the database (unless one is
 * given), builds the DocType and RPC registries and the service directory. Everything opened here is
 * released by `ctx.close()` in reverse order; a failure part-way releases what was opened and rethrows.
 */
export async function createContext(
  config: PlatformConfig,
  options: CreateContextOptions = {},
): Promise<AppContext> {
  const log = options.log ?? ((line: string) => console.error(line));
  const closers: Array<() => Promise<void> | void> = [];
  const close = async () => {
    while (closers.length > 0) {
      try {
        await closers.pop()!();
      } catch (err) {
        log(`close failed: ${(err as Error).message}`);
      }
    }
  };
  try {
    const apps = await loadInstalledApps(config.apps);
    const doctypes = createDocTypeRegistry(apps);
    const rpc = createRpcRegistry(apps);
    let db = options.database;
    if (!db) {
      db = await openDatabase({ dataDir: config.server.data_dir, databaseUrl: config.server.database_url });
      const opened = db;
      closers.push(() => opened.close());
    }
    const appsDir = options.appsDir ?? join(ROOT_DIR, 'backend', 'apps');
    const bus = options.bus ?? new InProcessBus();
    if (!options.bus) closers.push(() => bus.close());
    const security = await createSecurityContext({ config, db, log, doctypes, keys: options.keys });
    closers.push(() => security.close());
    const ctx: AppContext = {
      config,
      log,
      db,
      records: options.records ?? new DbRecordStore(db),
      apps,
      doctypes,
      rpc,
      directory: undefined as unknown as ServiceDirectory,
      publicUrl: defaultPublicUrl(config),
      appsDir,
      distDir: options.distDir ?? join(ROOT_DIR, 'dist'),
      publicDir: options.publicDir ?? join(ROOT_DIR, 'public'),
      security,
      bus,
      close,
    };
    ctx.directory =
      options.directory ?? createMonolithDirectory({ apps, appsDir, publicUrl: () => ctx.publicUrl });

    return ctx;
  } catch (err) {
    await close();
    throw err;
  }
}
