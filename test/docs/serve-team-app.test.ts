/**
 * `m serve --app crm --app stock --app ../notes` (docs/mfe-teams.md#running-it) serves a team's TypeScript
 * app folder from the prebuilt bundle `m serve` runs from (dist/server/m.js), where Node alone refuses a
 * `.ts` module ("Unknown file extension"). The bundle is built into a folder of its own for this test, so a
 * bundle that other tests run from is never rewritten, and the app is the one `m new app` writes, with the
 * platform linked into its node_modules as `npm install` of its `file:` dependency does. With `--watch`, a
 * changed module of the app folder is loaded afresh from the bundle too (its loader hook, not tsx's).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServerBundleInto } from '../helpers/m-entry';
import { ROOT, tail } from './sandbox';

const temp = mkdtempSync(join(tmpdir(), 'serve-team-app-'));
// Two folders below the repository, like dist/server/: the bundled modules find the repository by depth.
const bundleDir = join(ROOT, '.tmp', `serve-bundle-${process.pid}`);
let server: ChildProcess | undefined;
let output = '';

/** Runs a node script synchronously; throws with its output when it fails. */
function node(args: string[], cwd: string): void {
  const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 90_000 });
  if (result.status !== 0) {
    throw new Error(
      `node ${args.join(' ')} exited ${result.status}:\n${tail(result.stderr + result.stdout)}`,
    );
  }
}

beforeAll(() => {
  node([join(ROOT, 'bin', 'm.js'), 'new', 'app', 'notes', '--dir', join(temp, 'notes')], temp);
  mkdirSync(join(temp, 'notes', 'node_modules', '@framework-m'), { recursive: true });
  symlinkSync(ROOT, join(temp, 'notes', 'node_modules', '@framework-m', 'desk'), 'dir');
  buildServerBundleInto(bundleDir);
});

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  }
  rmSync(temp, { recursive: true, force: true });
  rmSync(bundleDir, { recursive: true, force: true });
});

/** Starts the bundle's `m` as bin/m.js does, with `args`, in `cwd`; resolves with the Desk's base URL. */
function startFromBundle(args: string[], cwd: string): Promise<string> {
  const entry = pathToFileURL(join(bundleDir, 'm.js')).href;
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { main } = await import(${JSON.stringify(entry)}); process.exitCode = await main(process.argv.slice(1));`,
      ...args,
    ],
    {
      cwd,
      env: { ...process.env, PORT: '', HOST: '', PLATFORM_APPS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  server = child;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no Desk URL within 90 s:\n${tail(output)}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Desk: (http:\/\/\S+)\/desk\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`m serve exited ${code}:\n${tail(output)}`));
    });
  });
}

describe('m serve --app <folder> from the bundle', () => {
  it("serves a team's TypeScript app next to the built-in ones, answers its RPC method and, with --watch, serves its changed DocType", async () => {
    const platform = join(temp, 'platform');
    mkdirSync(platform);
    const dataDir = join(temp, 'data');
    const url = await startFromBundle(
      [
        'serve',
        '--app',
        'crm',
        '--app',
        'stock',
        '--app',
        '../notes',
        '--watch',
        '--port',
        '0',
        '--data-dir',
        dataDir,
      ],
      platform,
    );
    const services = (await (await fetch(`${url}/api/gateway/services`)).json()) as Record<string, unknown>;
    expect(Object.keys(services).sort()).toEqual(['crm', 'notes', 'stock']);

    // The default password, accepted on loopback; then the app's own method, through the platform's RPC route.
    const login = await fetch(`${url}/api/method/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ usr: 'Administrator', pwd: 'admin' }),
    });
    expect(login.status).toBe(200);
    const { csrf_token } = (await login.json()) as { csrf_token: string };
    const count = await fetch(`${url}/api/method/notes.api.note_count`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: url,
        cookie: login.headers.get('set-cookie')!.split(';')[0]!,
        'x-csrf-token': csrf_token,
      },
      body: '{}',
    });
    expect(await count.json()).toEqual({ message: 0 });

    // --watch from the bundle: a change to a module the app module imports (doctypes.ts) is read afresh.
    const doctypes = join(temp, 'notes', 'doctypes.ts');
    writeFileSync(doctypes, readFileSync(doctypes, 'utf8').replace("label: 'Note',", "label: 'Memo',"));
    while (!/apps reloaded in \d+ ms/.test(output)) {
      if (server!.exitCode !== null) throw new Error(`m serve exited:\n${tail(output)}`);
      if (/the apps were not reloaded/.test(output)) throw new Error(tail(output));
      await new Promise((r) => setTimeout(r, 100));
    }
    const meta = await fetch(`${url}/api/meta/notes`, {
      headers: { origin: url, cookie: login.headers.get('set-cookie')!.split(';')[0]! },
    });
    expect(meta.status).toBe(200);
    const { doctypes: schemas } = (await meta.json()) as { doctypes: Array<{ name: string; label: string }> };
    expect(schemas.find((d) => d.name === 'notes.Note')?.label).toBe('Memo');

    const exited = new Promise<number | null>((resolve) => server!.once('exit', resolve));
    server!.kill('SIGTERM');
    expect(await exited, tail(output)).toBe(0);
  });
});
