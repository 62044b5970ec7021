import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InstalledApp } from '../../src/contract';
import { isFlagged } from '../../src/protocol';
import { loadInstalledApps } from '../apps';
import { createRpcRegistry } from '../apps/rpc-registry';
import { attachmentObserver } from '../attachments/attachment-observer';
import { DbAttachmentStore } from '../attachments/db-attachment-store';
import { AuditLog } from '../audit/audit-log';
import { revealObserver } from '../audit/reveal-observer';
import { ADMINISTRATOR } from '../auth/auth-service';
import {
  ADMIN_PASSWORD_ENV,
  DEFAULT_ADMIN_PASSWORD,
  refuseDefaultPasswordOffLoopback,
} from '../auth/default-password';
import type { AttemptStore } from '../auth/login-attempts';
import type { LoginRefusalHold } from '../auth/login-throttle';
import type { Bus } from '../bus/bus';
import { InProcessBus } from '../bus/in-process-bus';
import type { PlatformConfig } from '../config/schema';
import type { AppContext, Logger } from '../context';
import type { RecordObserver } from '../data/record-observer';
import { DbRecordStore } from '../data/record-store';
import type { RecordStore } from '../data/records';
import { type Database, databaseIdentity } from '../db/database';
import { openDatabase } from '../db/open-database';
import { ensureRecordIndexes } from '../db/record-indexes';
import { createDocTypeRegistry } from '../doctypes/registry';
import { createMonolithDirectory } from '../gateway/monolith-directory';
import type { ServiceDirectory } from '../gateway/service-directory';
import { historyObserver } from '../history/history-observer';
import { RecordHistory } from '../history/record-history';
import { DbImportStore } from '../import/db-import-store';
import { type ImportStore, MemoryImportStore } from '../import/import-store';
import type { CleanupStack } from '../lifecycle/cleanup-stack';
import { importJobMetrics } from '../metrics/import-job-metrics';
import { openProcessMetrics } from '../metrics/open-process-metrics';
import { declarationsOf } from '../permissions/from-apps';
import { PermissionService } from '../permissions/permission-service';
import { DbPermissionRuleStore, type PermissionRuleStore } from '../permissions/rule-store';
import { openReleases } from '../releases/open-releases';
import type { ReleaseService } from '../releases/release-service';
import type { DocTypeLookup } from '../security/encryption-policy';
import type { IdempotencyStore } from '../security/idempotency/idempotency-store';
import type { KeyStore } from '../security/keys/key-store';
import type { SeenSet } from '../security/replay/seen-set';
import { ensureBlindIndexes } from '../vault/blind-index';
import { EncryptedRecordStore } from '../vault/encrypted-record-store';
import { kekSources, openVaultKeys } from '../vault/vault-keys';
import { createSecurityContext } from './security';

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
  /** Where rules changed at run time are stored; default the `permission_rules` table of the database. */
  permissionRules?: PermissionRuleStore;
  /**
   * Base URL browsers reach this process at; default {@link defaultPublicUrl}. The `start*` roots pass the
   * address they bound when `server.public_url` is not configured.
   */
  publicUrl?: string;
  /** Where records live; default the database's `records` table. */
  records?: RecordStore;
  /** Told of every read the data API answers and every write it stores (history, audit); default none. */
  recordObservers?: readonly RecordObserver[];
  /** How refusals of locked sign-ins are held (tests); default the login throttle's. */
  loginThrottle?: LoginRefusalHold;
  /** Environment the secrets are read from (`PLATFORM_ADMIN_PASSWORD`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * The installed apps, already loaded (a reload after an app folder changed); default loaded from
   * `config.apps`.
   */
  apps?: InstalledApp[];
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
  /** Where seen JWE ids are shared between processes (replay check); default none: this process's memory. */
  seenJwes?: SeenSet;
  /**
   * Whether this process keeps users (creates Administrator, answers sign-ins): MONOLITH and gateways do, a
   * MACROSERVICE service does not (it takes the principal its gateway signs). Default true.
   */
  users?: boolean;
  /** Where failed sign-ins are counted; default this process's memory (a gateway passes the shared KV). */
  loginAttempts?: AttemptStore;
  /**
   * Opens the releases over the process's database (a MACROSERVICE gateway); default: MONOLITH's own, and
   * none for a process given a `directory`.
   */
  releases?: (db: Database) => Promise<ReleaseService>;
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
  const apps = options.apps ?? (await loadInstalledApps(config.apps));
  const doctypes = createDocTypeRegistry(apps);
  const rpc = createRpcRegistry(apps);
  let db = options.database;
  if (!db) {
    const opened = await openDatabase({
      dataDir: config.server.data_dir,
      databaseUrl: config.server.database_url,
      optimizeWasm: config.server.pglite_optimize,
      unsyncedCommits: config.server.risk_losing_writes_on_power_loss,
    });
    stack.defer(() => opened.close());
    db = opened;
  }
  // Every store below is built over the measured database, so `/metrics` sees each statement.
  const observed = openProcessMetrics(db, { slowStatementMs: config.server.slow_statement_ms }, stack);
  db = observed.db;
  await ensureRecordIndexes(db, doctypes.list(), log);
  // Personal data at rest and the audit of its reveals (docs/security.md#personal-data-at-rest): a
  // database the caller opened (tests) gets a key-encryption key as short-lived as it, unless one is set.
  // Only a process that stores flagged fields holds the vault's keys: a MACROSERVICE gateway installs no
  // app, so it neither needs the records' key-encryption key nor can fail on another process's one.
  const storesFlaggedFields = doctypes.list().some((d) => d.fields.some(isFlagged));
  const vault = storesFlaggedFields
    ? await openVaultKeys(
        db,
        kekSources(
          resolve(config.server.data_dir),
          options.env ?? process.env,
          options.database && databaseIdentity(options.database),
        ),
      )
    : undefined;
  if (vault) await ensureBlindIndexes(db, doctypes.list(), log);
  const audit = await AuditLog.open(db);
  stack.defer(() => audit.close());
  const appsDir = options.appsDir ?? join(ROOT_DIR, 'backend', 'apps');
  const security = await createSecurityContext({
    config,
    db,
    log,
    doctypes: parts.policyDoctypes ?? doctypes,
    keys: options.keys,
    idempotency: parts.idempotency,
    answerCipher: vault?.cipher,
    seenJwes: parts.seenJwes,
    administrator: parts.users ?? true,
    loginAttempts: parts.loginAttempts,
    loginThrottle: options.loginThrottle,
    adminPassword: (options.env ?? process.env)[ADMIN_PASSWORD_ENV],
  });
  stack.defer(() => security.close());
  const permissions = new PermissionService({
    declarations: declarationsOf(apps),
    store: options.permissionRules ?? new DbPermissionRuleStore(db),
  });
  await permissions.init();
  const publicUrl = options.publicUrl ?? defaultPublicUrl(config);
  // Releases live in MONOLITH's own database and data directory, next to the scan they take over from; a
  // gateway opens them over the database the gateways share.
  const releases = parts.releases
    ? await parts.releases(db)
    : parts.directory
      ? undefined
      : await openReleases(config, db, apps, log);
  const directory = parts.directory
    ? parts.directory(apps, appsDir, publicUrl)
    : createMonolithDirectory({ apps, appsDir, publicUrl: () => publicUrl, releases });
  const history = new RecordHistory(db);
  const databaseRecords = new DbRecordStore(db);
  // The records over a handle: the database's own, or a transaction's (an import's batch, backend/import).
  const recordsOver = (handle: Pick<Database, 'query'>): RecordStore =>
    vault
      ? new EncryptedRecordStore(databaseRecords.over(handle), vault, (name) => doctypes.get(name))
      : databaseRecords.over(handle);
  const records = options.records ?? recordsOver(db);
  // Imports settle their rows in the transaction that creates the records, so they need the database's
  // records; over records kept elsewhere (given by the caller) an import settles them one by one.
  let imports: ImportStore = options.records
    ? new MemoryImportStore(records)
    : new DbImportStore(db, recordsOver);
  if (imports instanceof DbImportStore) {
    await imports.migrate();
    const jobs = importJobMetrics(imports, db);
    observed.metrics.registry.register('jobs', jobs.collect);
    imports = jobs.store;
  }
  // Attachments live with their records: this process's database and data directory.
  const attachments = new DbAttachmentStore(db, join(resolve(config.server.data_dir), 'attachments'));
  await attachments.migrate();
  return Object.freeze({
    config,
    log,
    db,
    records,
    imports,
    // Each record's history is written where the record lives (docs/http-api.md#a-records-history).
    // A deleted record's attachments go with it.
    recordObservers: [
      revealObserver(audit),
      historyObserver(history),
      attachmentObserver(attachments),
      ...(options.recordObservers ?? []),
    ],
    attachments,
    audit,
    history,
    metrics: observed.metrics,
    apps,
    doctypes,
    rpc,
    permissions,
    directory,
    ...(releases ? { releases } : {}),
    publicUrl,
    appsDir,
    distDir: options.distDir ?? join(ROOT_DIR, 'dist'),
    publicDir: options.publicDir ?? join(ROOT_DIR, 'public'),
    security: Object.freeze(security),
    bus: parts.bus,
    close: () => stack.close(),
  });
}

/**
 * Refuses to start a process that keeps users (MONOLITH, a gateway) on an address other machines can reach
 * while Administrator still has the default password (`config_invalid`, exit 78 from `m serve`).
 */
export async function refuseDefaultAdminPassword(ctx: AppContext): Promise<void> {
  await refuseDefaultPasswordOffLoopback(ctx.config.server.host, () =>
    ctx.security.auth.checkPassword(ADMINISTRATOR, DEFAULT_ADMIN_PASSWORD),
  );
}
