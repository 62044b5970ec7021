import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import type { LoginRefusalHold } from '../../backend/auth/login-throttle';
import { loadConfig } from '../../backend/config/load-config';
import type { AppContext } from '../../backend/context';
import type { RecordObserver } from '../../backend/data/record-observer';
import type { Database } from '../../backend/db/database';
import { openDatabase } from '../../backend/db/open-database';
import type { ServiceDirectory } from '../../backend/gateway/service-directory';
import type { AppEnv } from '../../backend/http/env';
import { ROOT_DIR } from '../../backend/roots/context';
import { createMonolith } from '../../backend/roots/monolith';
import type { KeyStore } from '../../backend/security/keys/key-store';
import { MemoryKeyStore } from '../../backend/security/keys/memory-key-store';
import { apiKeyAuthorization } from './auth';
import { fileTempDir } from './file-temp-dirs';
import { type RequestOptions, request, setDefaultAuthorization, TEST_ORIGIN } from './http';

/** A fake UI remote: enough for discovery to list the app and for the asset route to serve a file. */
export const FAKE_REMOTE_ENTRY = 'window.fakeRemote = true;\n';

/** A shell page like the build's: relative asset URLs and one script, for the Desk route. */
export const FAKE_SHELL_HTML =
  '<!doctype html><html><head><meta charset="utf-8"><title>Desk</title>' +
  '<link rel="stylesheet" href="main.css"></head><body><div id="root"></div>' +
  '<script defer src="main.3f2a1b9c.js"></script></body></html>\n';

/**
 * Makes a temporary apps folder: each app listed with `true` gets `static/mfe/remoteEntry.js` (and a hashed
 * chunk `static/mfe/chunk.abcdef12.js`); `false` makes a folder without a remote.
 */
export function makeAppsFixture(apps: Record<string, boolean> = { crm: true, stock: true }): string {
  const dir = fileTempDir('desk-apps-');
  for (const [name, remote] of Object.entries(apps)) {
    const mfe = join(dir, name, 'static', 'mfe');
    mkdirSync(remote ? mfe : join(dir, name), { recursive: true });
    if (remote) {
      writeFileSync(join(mfe, 'remoteEntry.js'), FAKE_REMOTE_ENTRY);
      writeFileSync(join(mfe, 'chunk.abcdef12.js'), `/* ${name} chunk */\n`);
    }
  }
  return dir;
}

/** Makes a temporary build folder with `shell/index.html` (the given HTML) and one asset. */
export function makeDistFixture(html = FAKE_SHELL_HTML): string {
  const dir = fileTempDir('desk-dist-');
  mkdirSync(join(dir, 'shell'), { recursive: true });
  writeFileSync(join(dir, 'shell', 'index.html'), html);
  writeFileSync(join(dir, 'shell', 'main.3f2a1b9c.js'), 'console.log("shell");\n');
  writeFileSync(join(dir, 'shell', 'main.css'), 'body{margin:0}\n');
  return dir;
}

/** Overrides of {@link createTestApp}. */
export interface TestAppOverrides {
  /** `[tool.platform]` values as dotted paths, e.g. `{ 'gateway.max_resources': 5 }`. */
  config?: Record<string, unknown>;
  /** Apps folder; default a fixture where crm and stock both ship a fake remote. */
  appsDir?: string;
  /** Build folder; default a fixture with a fake shell page. */
  distDir?: string;
  /** A database to reuse (not closed by `close()`); default a fresh in-memory PGlite. */
  database?: Database;
  /** Payload-encryption keys; default a fresh MemoryKeyStore. */
  keys?: KeyStore;
  /** A service directory (e.g. a static one naming remote services); default the MONOLITH scan. */
  directory?: ServiceDirectory;
  /** Log lines go here; default dropped. */
  log?: (line: string) => void;
  /** Told of the data API's reads and writes; default none. */
  recordObservers?: readonly RecordObserver[];
  /** How refusals of locked sign-ins are held; default the server's. */
  loginThrottle?: LoginRefusalHold;
}

/** The real app over an in-memory database, and a `request` bound to it. */
export interface TestApp {
  app: Hono<AppEnv>;
  ctx: AppContext;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Builds the real Hono app for a test file. Payload encryption defaults to `disabled` (plaintext requests),
 * the public URL to `http://desk.test`; both can be overridden through `config`.
 */
export async function createTestApp(overrides: TestAppOverrides = {}): Promise<TestApp> {
  const config = loadConfig({
    file: join(ROOT_DIR, 'platform.toml'),
    env: {},
    overrides: {
      'security.payload_encryption.mode': 'disabled',
      'server.public_url': TEST_ORIGIN,
      ...overrides.config,
    },
  });
  const temp: string[] = [];
  const appsDir = overrides.appsDir ?? makeAppsFixture();
  const distDir = overrides.distDir ?? makeDistFixture();
  if (!overrides.appsDir) temp.push(appsDir);
  if (!overrides.distDir) temp.push(distDir);
  const database = overrides.database ?? (await openDatabase({ memory: true }));
  // Keys in memory: tests never write key files into the repository's data directory.
  const keys =
    overrides.keys ??
    (await MemoryKeyStore.create({ graceMs: config.security.payload_encryption.key_grace_seconds * 1000 }));
  const { app, ctx, close } = await createMonolith(config, {
    log: overrides.log ?? (() => {}),
    database,
    appsDir,
    distDir,
    keys,
    directory: overrides.directory,
    recordObservers: overrides.recordObservers,
    loginThrottle: overrides.loginThrottle,
  });
  setDefaultAuthorization(app, await apiKeyAuthorization(ctx));
  return {
    app,
    ctx,
    request: (method, path, options) => request(app, method, path, options),
    async close() {
      await close();
      if (!overrides.database) await database.close();
      for (const dir of temp) rmSync(dir, { recursive: true, force: true });
    },
  };
}
