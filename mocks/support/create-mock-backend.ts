/**
 * The offline backend: the platform's own API app (`createApiApp`: the same middleware chain and routes the
 * server runs) composed over parts that need neither a database nor Node modules: records in memory
 * (`MemoryRecordStore`, seeded unless asked empty, refusing on `pii` and `encrypted` fields the queries the
 * server's encryption at rest refuses; CSV imports over it, `MemoryImportStore`; files attached
 * to records, `MemoryAttachmentStore`), the audit log of reveals in memory (`MemoryAuditLog`), users and
 * sessions in memory (`MemoryAuthStore`, with
 * `Administrator` / `admin` as on a first start), WebCrypto PBKDF2 password hashing, a WebCrypto key store
 * and an in-memory idempotency store. The browser worker (../browser.ts) and the Node mock server
 * (../node.ts) both hand every API request to {@link MockBackend.fetch}.
 */
import { Hono } from 'hono';
import { type ApiContext, createApiApp } from '../../backend/api-app';
import { crmApp } from '../../backend/apps/crm/app';
import { createRpcRegistry } from '../../backend/apps/rpc-registry';
import { stockApp } from '../../backend/apps/stock/app';
import { supportApp } from '../../backend/apps/support/app';
import { attachmentObserver } from '../../backend/attachments/attachment-observer';
import { MemoryAttachmentStore } from '../../backend/attachments/attachment-store';
import { MemoryAuditLog } from '../../backend/audit/memory-audit-log';
import { revealObserver } from '../../backend/audit/reveal-observer';
import { AuthService } from '../../backend/auth/auth-service';
import { HashGate } from '../../backend/auth/hash-gate';
import { MemoryAttemptStore } from '../../backend/auth/login-attempts';
import { LoginThrottle } from '../../backend/auth/login-throttle';
import { type MemoryAuthSnapshot, MemoryAuthStore } from '../../backend/auth/memory-auth-store';
import { Pbkdf2PasswordHasher } from '../../backend/auth/pbkdf2-password-hasher';
import { type PlatformConfig, platformTomlSchema } from '../../backend/config/schema';
import { MemoryRecordStore, type MemoryRecordsSnapshot } from '../../backend/data/memory-record-store';
import { createDocTypeRegistry, type DocTypeRegistry } from '../../backend/doctypes/registry';
import { createStaticDirectory } from '../../backend/gateway/service-directory';
import { historyObserver } from '../../backend/history/history-observer';
import { MemoryRecordHistory } from '../../backend/history/memory-record-history';
import type { AppEnv } from '../../backend/http/env';
import { handleError, notFound } from '../../backend/http/errors';
import { MemoryImportStore } from '../../backend/import/import-store';
import { declarationsOf } from '../../backend/permissions/from-apps';
import { PermissionService } from '../../backend/permissions/permission-service';
import { MemoryPermissionRuleStore } from '../../backend/permissions/rule-store';
import type { SecurityContext } from '../../backend/roots/security';
import { createEncryptionPolicy, type EncryptionPolicy } from '../../backend/security/encryption-policy';
import { MemoryIdempotencyStore } from '../../backend/security/idempotency/memory-idempotency-store';
import { WebCryptoKeyStore } from '../../backend/security/keys/webcrypto-key-store';
import type { InstalledApp } from '../../src/contract';
import type { EncryptionMode, ServiceManifest } from '../../src/protocol';
import { refuseFlaggedQueries } from './flagged-queries';
import { seedRecords } from './seed-records';

/** The mock's one user: the platform's first-start administrator with the default password. */
export const MOCK_USER = { usr: 'Administrator', pwd: 'admin' } as const;

/** Options of {@link createMockBackend}. */
export interface MockBackendOptions {
  /** Payload-encryption mode; default `metadata` (the platform's default). */
  mode?: EncryptionMode;
  /** Extra selective-mode routes (merged with the built-in ones). */
  routes?: string[];
  /** Apps to install; default the sample apps `crm`, `stock` and `support`. */
  apps?: InstalledApp[];
  /** Origin the manifests point at (`''` = the page's origin); default `''`. */
  baseUrl?: string;
  /** Services whose manifest has a UI remote (`url`); default none (data-only, nothing to fetch offline). */
  remotes?: string[];
  /**
   * What the record store starts with: `seeded` (default) a few deterministic records per sample DocType
   * (./seed-records.ts), so the offline Desk lists something; `empty` for tests that count what they store.
   */
  records?: 'seeded' | 'empty';
  /**
   * The releases API to mount (`releaseRoutes` over a release service the caller opened, MONOLITH's routes);
   * default none, as a process without releases answers. Passed in, not built here: a release service needs
   * a database and a folder, which the browser worker has neither of.
   */
  releases?: Hono<AppEnv>;
  /**
   * Called once a request that may change something (any method but GET, HEAD and OPTIONS) is answered,
   * before its answer is handed on: the browser worker saves {@link MockBackend.snapshot} there.
   */
  afterWrite?(backend: MockBackend): Promise<void>;
  /**
   * Starts from what an earlier backend kept ({@link MockBackend.snapshot}) instead of the seeds: its
   * records, and its users with their sessions, so their cookies and CSRF tokens still hold.
   */
  from?: OfflineSnapshot;
}

/** What the offline backend keeps across page reloads: the records, and users with their sessions. */
export interface OfflineSnapshot {
  records: MemoryRecordsSnapshot;
  auth: MemoryAuthSnapshot;
}

/** A running offline backend. */
export interface MockBackend {
  /** Answers one API request, exactly as the server's app would. */
  fetch(request: Request): Promise<Response>;
  /**
   * Answers one API request and also returns the cookies the app set: a `Response` built in a browser drops
   * its `Set-Cookie` headers (a forbidden response header), so the worker hands these to MSW itself.
   */
  handle(request: Request): Promise<{ response: Response; setCookies: string[] }>;
  /** The context the app was built from. */
  readonly ctx: ApiContext;
  apps: InstalledApp[];
  doctypes: DocTypeRegistry;
  manifests: ServiceManifest[];
  /** The records the data API serves. */
  store: MemoryRecordStore;
  /** The payload-encryption policy in force. */
  readonly policy: EncryptionPolicy;
  /** The payload-encryption keys; `rotateKeys` makes a new active key. */
  keys: WebCryptoKeyStore;
  /** Switches the payload-encryption mode (rebuilds the app, as a server restart with new config would). */
  setMode(mode: EncryptionMode, routes?: string[]): void;
  /** Makes a new active key; with `dropOld`, previous keys stop decrypting at once (past their grace). */
  rotateKeys(options?: { dropOld?: boolean }): Promise<void>;
  /** How many sample records the store started with (0 with `records: 'empty'` or apps without samples). */
  readonly sampleRecords: number;
  /** The records, users and sessions as plain data (`from` of the next backend, after a page reload). */
  snapshot(): OfflineSnapshot;
}

/**
 * Manifests of `apps` as a MONOLITH gateway would publish them (backend/gateway/monolith-directory.ts):
 * `apiUrl` `<base>/api`, `metaUrl` `<base>/api/meta/<app>`, and a remote entry under `/desk/assets/`.
 */
export function manifestsOf(
  apps: readonly InstalledApp[],
  baseUrl = '',
  remotes: readonly string[] = [],
): ServiceManifest[] {
  const base = baseUrl.replace(/\/+$/, '');
  return apps.map((app) => ({
    service: app.name,
    rev: 1,
    url: remotes.includes(app.name) ? `${base}/desk/assets/${app.name}/remoteEntry.js` : null,
    apiUrl: `${base}/api`,
    metaUrl: `${base}/api/meta/${app.name}`,
    doctypes: app.doctypes.map((d) => d.name),
  }));
}

/** Methods that change nothing, after which there is nothing to save. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** PBKDF2 rounds of the mock's password hashes: the offline user's password is public anyway. */
const MOCK_PBKDF2_ITERATIONS = 1_000;

function configOf(apps: readonly InstalledApp[], mode: EncryptionMode, routes: string[]): PlatformConfig {
  return platformTomlSchema.parse({
    apps: apps.map((a) => a.name),
    security: { payload_encryption: { mode, routes } },
  });
}

/** The `Set-Cookie` values each request's answer carried, by request. */
const setCookiesOf = new WeakMap<Request, string[]>();

/**
 * The API app behind a first middleware that notes every `Set-Cookie` value the routes set (see
 * {@link MockBackend.handle}); errors and unknown paths are answered as the API app answers them.
 */
function withCookieCapture(api: Hono<AppEnv>): Hono<AppEnv> {
  const outer = new Hono<AppEnv>();
  outer.onError(handleError(() => {}));
  outer.notFound(notFound);
  outer.use('*', async (c, next) => {
    const cookies: string[] = [];
    setCookiesOf.set(c.req.raw, cookies);
    const header = c.header.bind(c);
    c.header = ((name: string, value?: string, options?: { append?: boolean }) => {
      if (value !== undefined && name.toLowerCase() === 'set-cookie') cookies.push(value);
      return header(name, value, options);
    }) as typeof c.header;
    await next();
  });
  outer.route('/', api);
  return outer;
}

/** Builds the offline backend: the platform's API app over in-memory stores (see the file comment). */
export async function createMockBackend(options: MockBackendOptions = {}): Promise<MockBackend> {
  const apps = options.apps ?? [crmApp, stockApp, supportApp];
  const doctypes = createDocTypeRegistry(apps);
  const manifests = manifestsOf(apps, options.baseUrl, options.remotes);
  const config = configOf(apps, options.mode ?? 'metadata', options.routes ?? []);
  const pe = config.security.payload_encryption;
  let clock = Date.now();
  const graceMs = pe.key_grace_seconds * 1000;
  // The key clock only moves on `rotateKeys({ dropOld })`, past the grace period, so old keys expire then.
  const keys = await WebCryptoKeyStore.create({ graceMs, now: () => clock });
  const authStore = new MemoryAuthStore();
  // Before the auth service reads the CSRF secret from its store.
  if (options.from) authStore.restore(options.from.auth);
  const auth = new AuthService({
    store: authStore,
    passwords: new Pbkdf2PasswordHasher(MOCK_PBKDF2_ITERATIONS),
    sessionTtlMs: config.security.session.ttl_seconds * 1000,
  });
  await auth.migrate();
  await auth.ensureAdministrator(MOCK_USER.pwd);
  const loginThrottle = new LoginThrottle({ store: new MemoryAttemptStore() });
  const hashGate = new HashGate();
  const permissions = new PermissionService({
    declarations: declarationsOf(apps),
    store: new MemoryPermissionRuleStore(),
  });
  await permissions.init();
  const records = new MemoryRecordStore();
  const seeded = options.records === 'empty' ? {} : seedRecords(records, doctypes);
  const sampleRecords = Object.values(seeded).reduce((sum, n) => sum + n, 0);
  if (options.from) records.restore(options.from.records);
  // What the routes and RPC methods get: the records, refusing on flagged fields what the server's
  // encryption at rest refuses (sorts, comparisons, patterns, sums: ./flagged-queries.ts).
  const served = refuseFlaggedQueries(records, (name) => doctypes.get(name));
  // One import store for the backend's life: a mode switch rebuilds the app, not the imports.
  const imports = new MemoryImportStore(served);
  // Files attached to records, in memory like the records (removed with a deleted record).
  const attachments = new MemoryAttachmentStore();
  // Reveals are audited offline too, so the Desk's audit screens show what the session read.
  const audit = new MemoryAuditLog();
  // Each record's changes and comments, in memory too, so a record's timeline shows offline.
  const history = new MemoryRecordHistory();
  const recordObservers = [revealObserver(audit), historyObserver(history), attachmentObserver(attachments)];
  const idempotency = new MemoryIdempotencyStore();
  const directory = createStaticDirectory(manifests);
  const rpc = createRpcRegistry(apps);
  // A context is never patched: a change of mode builds a new one (and a new app) over the same stores.
  const contextFor = (mode: EncryptionMode, routes: string[]): ApiContext => {
    const security: SecurityContext = {
      keys,
      policy: createEncryptionPolicy({ mode, routes, doctypes }),
      idempotency,
      auth,
      users: auth.users,
      loginThrottle,
      hashGate,
      close: () => {},
    };
    return {
      config: mode === pe.mode && routes === pe.routes ? config : configOf(apps, mode, routes),
      log: () => {},
      records: served,
      imports,
      attachments,
      recordObservers,
      audit,
      history,
      apps,
      doctypes,
      rpc,
      permissions,
      directory,
      security,
    };
  };
  let ctx = contextFor(pe.mode, pe.routes);
  const appOf = (context: ApiContext) =>
    withCookieCapture(createApiApp(context, options.releases ? { releases: options.releases } : {}));
  let app = appOf(ctx);
  const backend: MockBackend = {
    fetch: async (request) => app.fetch(request),
    async handle(request) {
      const response = await app.fetch(request);
      if (options.afterWrite && !READS.has(request.method)) await options.afterWrite(backend);
      return { response, setCookies: setCookiesOf.get(request) ?? [] };
    },
    get ctx() {
      return ctx;
    },
    apps,
    doctypes,
    manifests,
    store: records,
    get policy() {
      return ctx.security.policy;
    },
    keys,
    setMode(mode, routes = []) {
      ctx = contextFor(mode, routes);
      app = appOf(ctx);
    },
    async rotateKeys(rotation = {}) {
      await keys.rotate();
      if (rotation.dropOld) clock += graceMs + 1;
    },
    sampleRecords,
    snapshot: () => ({ records: records.snapshot(), auth: authStore.snapshot() }),
  };
  return backend;
}
