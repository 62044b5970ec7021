/**
 * An app made by `m new app` in a temporary folder outside the repository, installed, built and tested
 * with the commands a team runs, each timed; and the processes that serve it (`npm start`).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { E2E_ADMIN_PASSWORD, freePort, stopProcess } from './desk-target';

const root = join(import.meta.dirname, '..', '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** A scaffolded app and how long each step took (ms). */
export interface ScaffoldedApp {
  name: string;
  dir: string;
  timings: Record<string, number>;
  /** What its `npm install` printed, standard output and standard error: what a team sees first. */
  installOutput: string;
  /** Runs a command in the app's folder, timed under `label`; returns its output. */
  run(label: string, command: string, args: string[], env?: NodeJS.ProcessEnv): string;
  dispose(): void;
}

/** Scaffolds `name` into a new temporary folder and runs `npm install` there. */
export function scaffold(name: string): ScaffoldedApp {
  const parent = mkdtempSync(join(tmpdir(), 'desk-team-'));
  const dir = join(parent, name);
  const timings: Record<string, number> = {};
  /** Each command's standard output and standard error, by label (npm's warnings go to the latter). */
  const outputs: Record<string, string> = {};
  const run = (label: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
    const started = Date.now();
    const result = spawnSync(command, args, {
      cwd: dir,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    timings[label] = Date.now() - started;
    outputs[label] = `${result.stdout}${result.stderr}`;
    if (result.status !== 0) {
      const why = result.error?.message ?? `exit code ${result.status ?? result.signal}`;
      throw new Error(`${label} failed: ${why}\n${result.stdout}\n${result.stderr}`);
    }
    return result.stdout;
  };
  const started = Date.now();
  execFileSync(process.execPath, [join(root, 'bin', 'm.js'), 'new', 'app', name, '--dir', dir], {
    cwd: parent,
    stdio: 'pipe',
  });
  timings['m new app'] = Date.now() - started;
  try {
    run('npm install', npm, ['install', '--prefer-offline', '--no-audit', '--no-fund']);
  } catch (error) {
    rmSync(parent, { recursive: true, force: true });
    throw error;
  }
  return {
    name,
    dir,
    timings,
    installOutput: outputs['npm install']!,
    run,
    dispose: () => rmSync(parent, { recursive: true, force: true }),
  };
}

/** A running `npm start` of a scaffolded app. */
export interface StartedApp {
  origin: string;
  deskUrl: string;
  dataDir: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * `npm start [-- extra]` in the app's folder on a free port with a temporary data folder; resolves once the
 * gateway at `gatewayOrigin` (default the app's own) resolves `<name>.Note`.
 */
export async function startApp(
  app: ScaffoldedApp,
  options: { extra?: string[]; env?: NodeJS.ProcessEnv; gatewayOrigin?: string; port?: number } = {},
): Promise<StartedApp> {
  const port = options.port ?? (await freePort());
  const dataDir = mkdtempSync(join(tmpdir(), `desk-team-data-`));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
    ...options.env,
  };
  for (const key of ['PLATFORM_PUBLIC_URL', 'PLATFORM_DATABASE_URL', 'PLATFORM_APPS']) delete env[key];
  const args = ['start', ...(options.extra ? ['--', ...options.extra] : [])];
  const child = spawn(npm, args, { cwd: app.dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const origin = `http://127.0.0.1:${port}`;
  const started: StartedApp = {
    origin,
    deskUrl: `${origin}/desk/`,
    dataDir,
    output: () => out,
    async stop() {
      await stopGroup(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const gateway = options.gatewayOrigin ?? origin;
  const deadline = Date.now() + 240_000;
  while (!(await owns(gateway, `${app.name}.Note`, app.name))) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      await started.stop();
      throw new Error(`npm start was not discoverable in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return started;
}

/**
 * npm runs the app's command in a child: stop the whole process group, and wait until every process in it
 * is gone. npm itself can exit on SIGTERM before the server it started has closed its stores, and removing
 * the data folder under a server still writing to it fails with ENOTEMPTY.
 */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const group = -child.pid;
  if (!signalGroup(group, 'SIGTERM')) return child.exitCode === null ? stopProcess(child) : undefined;
  const timer = setTimeout(() => signalGroup(group, 'SIGKILL'), 20_000);
  // Signal 0 checks that some process of the group still exists. An exited process nobody reaps answers it
  // too, so the wait is bounded as well as the SIGKILL above.
  const deadline = Date.now() + 30_000;
  while (signalGroup(group, 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  clearTimeout(timer);
}

/** Sends `signal` to a process group; false once no process of the group is left. */
function signalGroup(group: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(group, signal);
    return true;
  } catch {
    return false;
  }
}

async function owns(origin: string, docType: string, service: string): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/api/gateway/discovery/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resources: [docType] }),
    });
    const body = (await response.json()) as { resources?: Record<string, string | null> };
    return body.resources?.[docType] === service;
  } catch {
    return false;
  }
}
