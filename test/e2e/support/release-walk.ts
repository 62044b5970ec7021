/**
 * What the releases end-to-end tests share, in either mode: `m release` run against a started target with a
 * System Manager's API key, app folders publishing the crm remote as built in this checkout, signing in, and
 * the crm release each page loads its files from.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { type DeskTarget, E2E_ADMIN_PASSWORD } from './desk-target';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The helpers of one test file, bound to its target. */
export interface ReleaseWalk {
  /** Runs `m release <args>`; resolves to its output, failing on a non-zero exit. */
  release(args: string[]): Promise<string>;
  /**
   * An app folder publishing the crm remote at `version`; `mark` is appended to its remoteEntry.js so each
   * release is a different build. With `extraMethod`, the app it is built against also has that RPC method,
   * which the running crm lacks: the contract gate refuses to make it live unless forced.
   */
  crmFolder(name: string, version: string, mark: string, extraMethod?: string): string;
  /** Publishes an app folder's build; resolves to the release version. */
  publish(folder: string): Promise<string>;
  publishAndPromote(folder: string): Promise<string>;
  signIn(page: Page): Promise<void>;
  /** Kills what is still running and removes the folders. */
  dispose(): void;
}

/** Creates an API key for Administrator on `target` and returns the helpers bound to it. */
export async function startReleaseWalk(target: DeskTarget): Promise<ReleaseWalk> {
  const temp = mkdtempSync(join(tmpdir(), `desk-e2e-releases-${target.mode}-`));
  const children = new Set<ChildProcess>();
  const login = await fetch(`${target.origin}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: target.origin },
    body: JSON.stringify({ usr: 'Administrator', pwd: E2E_ADMIN_PASSWORD }),
  });
  const { csrf_token } = (await login.json()) as { csrf_token: string };
  const key = await fetch(`${target.origin}/api/method/platform.auth.generate_api_key`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: login.headers.get('set-cookie')!.split(';')[0]!,
      'x-csrf-token': csrf_token,
      origin: target.origin,
    },
    body: '{}',
  });
  const { message } = (await key.json()) as { message: { api_key: string; api_secret: string } };
  const apiKey = `${message.api_key}:${message.api_secret}`;

  const release = (args: string[]): Promise<string> => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'm.js'), 'release', ...args], {
      cwd: ROOT,
      env: { ...process.env, PLATFORM_URL: target.origin, PLATFORM_API_KEY: apiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    return new Promise((resolve, reject) =>
      child.once('exit', (code) =>
        code === 0 ? resolve(out) : reject(new Error(`m release ${args.join(' ')}: ${out}`)),
      ),
    );
  };

  const crmFolder = (name: string, version: string, mark: string, extraMethod?: string): string => {
    const dir = join(temp, name);
    mkdirSync(dir, { recursive: true });
    cpSync(join(ROOT, 'backend', 'apps', 'crm', 'static', 'mfe'), join(dir, 'static', 'mfe'), {
      recursive: true,
    });
    const entry = join(dir, 'static', 'mfe', 'remoteEntry.js');
    writeFileSync(entry, `${readFileSync(entry, 'utf8')}\n/* ${mark} */\n`);
    // Its stale precompressed copies are left out.
    rmSync(`${entry}.br`, { force: true });
    rmSync(`${entry}.gz`, { force: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: `crm-${name}`, version, type: 'module' }),
    );
    const crm = JSON.stringify(join(ROOT, 'backend', 'apps', 'crm', 'app.ts'));
    writeFileSync(
      join(dir, 'app.ts'),
      extraMethod
        ? `import { crmApp } from ${crm};\nexport default { ...crmApp, methods: { ...crmApp.methods, ${JSON.stringify(extraMethod)}: crmApp.methods['crm.api.ping'] } };\n`
        : `export { crmApp as default } from ${crm};\n`,
    );
    return dir;
  };

  const publish = async (folder: string): Promise<string> => {
    const out = await release(['publish', '--dir', folder]);
    const version = /published crm (\S+) /.exec(out)?.[1];
    if (!version) throw new Error(`no version in: ${out}`);
    return version;
  };

  return {
    release,
    crmFolder,
    publish,
    async publishAndPromote(folder) {
      const version = await publish(folder);
      await release(['promote', 'crm', version]);
      return version;
    },
    async signIn(page) {
      await page.goto(target.deskUrl);
      await page.getByLabel(/User/i).first().fill('Administrator');
      await page.getByLabel('Password').fill(E2E_ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page
        .getByRole('navigation', { name: 'Apps' })
        .getByRole('link', { name: 'Customers', exact: true })
        .waitFor();
    },
    dispose() {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(temp, { recursive: true, force: true });
    },
  };
}

/** The crm remote files a page requests, as the release segment of their URL (`static` for static/mfe). */
export function crmRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    const match = /^\/desk\/assets\/crm\/(?:([^/]+\+[0-9a-f]{12})\/)?/.exec(path);
    if (match) seen.push(match[1] ?? 'static');
  });
  return seen;
}

/**
 * The gateway discovery requests `page` sends from now on (`POST /api/gateway/discovery/query`,
 * `GET /api/gateway/remotes`, ...), as `<method> <path>`: a navigation's offer of a new release comes with
 * its one discovery query, without a request for the remotes map of its own.
 */
export function gatewayRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/api/gateway/')) seen.push(`${request.method()} ${path}`);
  });
  return seen;
}
