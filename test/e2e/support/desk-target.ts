/**
 * A running platform for the Desk end-to-end tests, in either mode, on free ports with a temporary data
 * directory:
 * - `monolith`: `m serve --build-missing` (what `npm start` runs);
 * - `macroservice`: `scripts/start-macro.js` (what `npm run start:macro` runs): a private nats-server, the
 *   gateway and one process per sample app.
 * `stop()` sends SIGTERM and waits, so the stores are closed and the database can be opened by the test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';

const root = join(import.meta.dirname, '..', '..', '..');

/** The two deployment modes the Desk flow runs against. */
export type DeskMode = 'monolith' | 'macroservice';

/** The Administrator password the targets are started with. */
export const E2E_ADMIN_PASSWORD = 'e2e-admin-password';

/** A started platform. */
export interface DeskTarget {
  mode: DeskMode;
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  /** The Desk URL (`<origin>/desk/`). */
  deskUrl: string;
  /** Everything the processes printed so far (for failure messages). */
  output(): string;
  /** Opens the database that holds `app`'s records; call after {@link DeskTarget.stop}. */
  openAppDatabase(app: string): Promise<Database>;
  /** Stops the processes (SIGTERM) and waits for them to exit. */
  stop(): Promise<void>;
  /** Removes the temporary data directory. */
  dispose(): void;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Starts the platform in `mode`; resolves once the Desk answers and the sample apps are discoverable. `env`
 * adds variables for every process (e.g. `PLATFORM_DATABASE_URL_CRM` for start:macro).
 */
export async function startDeskTarget(
  mode: DeskMode,
  extraEnv: Record<string, string> = {},
): Promise<DeskTarget> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `desk-e2e-${mode}-`));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
  };
  // Settings of another deployment in the caller's environment must not leak in.
  delete env.PLATFORM_MODE;
  delete env.PLATFORM_NATS_URL;
  delete env.PLATFORM_PUBLIC_URL;
  delete env.PLATFORM_DATABASE_URL;
  Object.assign(env, extraEnv);
  const args =
    mode === 'monolith'
      ? [join(root, 'bin', 'm.js'), 'serve', '--build-missing']
      : [join(root, 'scripts', 'start-macro.js')];
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const origin = `http://127.0.0.1:${port}`;
  const target: DeskTarget = {
    mode,
    origin,
    deskUrl: `${origin}/desk/`,
    output: () => out,
    openAppDatabase: (app) =>
      openDatabase({ dataDir: mode === 'monolith' ? dataDir : join(dataDir, 'services', app) }),
    stop: () => stopProcess(child),
    dispose: () => rmSync(dataDir, { recursive: true, force: true }),
  };
  try {
    // A first start on a clean clone builds the shell and the remotes: minutes on a small machine.
    await waitUntil(
      () => discoverable(origin),
      child,
      () => out,
      240_000,
    );
  } catch (error) {
    await target.stop();
    target.dispose();
    throw error;
  }
  return target;
}

/** True once the gateway resolves the sample apps' DocTypes to their services. */
async function discoverable(origin: string): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/api/gateway/discovery/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resources: ['crm.Customer', 'stock.Item', 'support.Ticket'] }),
    });
    if (!response.ok) return false;
    const body = (await response.json()) as { resources?: Record<string, string | null> };
    return (
      body.resources?.['crm.Customer'] === 'crm' &&
      body.resources?.['stock.Item'] === 'stock' &&
      body.resources?.['support.Ticket'] === 'support'
    );
  } catch {
    return false;
  }
}

async function waitUntil(
  ready: () => Promise<boolean>,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `the platform exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output()}`,
      );
    }
    if (Date.now() > deadline)
      throw new Error(`the platform was not ready within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Stops a child process: SIGTERM, SIGKILL after 20 s; resolves once it has exited. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
