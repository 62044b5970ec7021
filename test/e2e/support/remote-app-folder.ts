/**
 * App folders whose UI remote is built by a team's own bundler configuration: copies of
 * examples/foreign-remote (plain webpack with `@module-federation/enhanced`, no createRemoteConfig) under the
 * repository's git-ignored `.tmp/`, renamed to another service and edited as a test needs (a container named
 * otherwise, React 18, an eval devtool, another stylesheet), built with webpack's own CLI, then served by
 * `m serve --app <folder>...`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { E2E_ADMIN_PASSWORD, freePort, stopProcess } from './desk-target';

const root = join(import.meta.dirname, '..', '..', '..');
const EXAMPLE = join(root, 'examples', 'foreign-remote');

/** An edit of one file of the copy: `[file, from, to]` (every occurrence). */
export type FolderEdit = [file: string, from: string, to: string];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Builds the folder with Rspack's JavaScript API and its `rspack.config.mjs` (no CLI needed). */
const RSPACK_BUILD = `import { rspack } from '@rspack/core';
import config from './rspack.config.mjs';
rspack(config, (error, stats) => {
  if (error || stats.hasErrors()) {
    console.log(String(error ?? stats.toString({ all: false, errors: true })));
    process.exit(1);
  }
});`;

/**
 * Copies the example to `<parent>/<service>`, renames its service from `gadgets` to `service` everywhere,
 * applies `edits`, and builds it: `webpack --config webpack.config.mjs`, or with `bundler: 'rspack'` Rspack
 * with `rspack.config.mjs`. Returns the folder.
 */
export function buildRemoteAppFolder(
  parent: string,
  service: string,
  edits: FolderEdit[] = [],
  bundler: 'webpack' | 'rspack' = 'webpack',
): string {
  const dir = join(parent, service);
  cpSync(EXAMPLE, dir, {
    recursive: true,
    filter: (src) => !src.includes(`${join('foreign-remote', 'static')}`),
  });
  for (const file of filesUnder(dir)) {
    const label = `'${service[0]!.toUpperCase()}${service.slice(1)}'`;
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replaceAll('gadgets', service).replaceAll("'Gadgets'", label),
    );
  }
  for (const [file, from, to] of edits) {
    const path = join(dir, file);
    const text = readFileSync(path, 'utf8');
    if (!text.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)} to edit`);
    writeFileSync(path, text.replaceAll(from, to));
  }
  try {
    const args =
      bundler === 'rspack'
        ? ['--input-type=module', '-e', RSPACK_BUILD]
        : [join(root, 'node_modules', 'webpack-cli', 'bin', 'cli.js'), '--config', 'webpack.config.mjs'];
    execFileSync(process.execPath, args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const e = error as { stdout?: string; message: string };
    throw new Error(`${bundler} failed for ${service}: ${e.message}\n${(e.stdout ?? '').slice(-4000)}`);
  }
  return dir;
}

/** A parent folder for app folders under the repository's `.tmp/` (so the platform's packages resolve). */
export function remoteAppParent(): { dir: string; dispose(): void } {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, '.tmp', 'remote-apps-'));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A running `m serve` with app folders. */
export interface ServedApps {
  origin: string;
  deskUrl: string;
  output(): string;
  stop(): Promise<void>;
}

async function owner(origin: string, docType: string): Promise<string | null | undefined> {
  try {
    const response = await fetch(`${origin}/api/gateway/discovery/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resources: [docType] }),
    });
    const body = (await response.json()) as { resources?: Record<string, string | null> };
    return body.resources?.[docType];
  } catch {
    return undefined;
  }
}

/**
 * `m serve --build-missing --app <spec>...` (a MONOLITH on a free port, a temporary data folder); resolves
 * once `readyDocType` is discoverable.
 */
export async function serveApps(apps: string[], readyDocType: string): Promise<ServedApps> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'desk-remote-apps-data-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
  };
  for (const key of [
    'PLATFORM_MODE',
    'PLATFORM_NATS_URL',
    'PLATFORM_PUBLIC_URL',
    'PLATFORM_DATABASE_URL',
    'PLATFORM_APPS',
  ]) {
    delete env[key];
  }
  const args = [join(root, 'bin', 'm.js'), 'serve', '--build-missing', ...apps.flatMap((a) => ['--app', a])];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const origin = `http://127.0.0.1:${port}`;
  const served: ServedApps = {
    origin,
    deskUrl: `${origin}/desk/`,
    output: () => out,
    async stop() {
      await stopProcess(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const service = readyDocType.split('.')[0];
  const deadline = Date.now() + 240_000;
  while ((await owner(origin, readyDocType)) !== service) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await served.stop();
      throw new Error(`m serve was not ready:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return served;
}

/** Signs in as the administrator and waits for the apps' navigation. */
export async function signInAsAdministrator(page: Page, deskUrl: string): Promise<void> {
  await page.goto(deskUrl);
  await page.getByLabel('User', { exact: true }).fill('Administrator');
  await page.getByLabel('Password').fill(E2E_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Apps' }).waitFor();
}

/** Waits until `service`'s stylesheet is confined: its scoped copy in the page's head has its rules. */
export async function stylesConfined(page: Page, service: string): Promise<void> {
  await page.waitForFunction(
    (name) =>
      document.querySelector(`head style[data-desk-scoped="${name}"]`)?.textContent?.includes('@scope'),
    service,
  );
}
