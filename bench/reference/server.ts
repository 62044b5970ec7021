import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** The repository root: `bin/m.js` lives there. */
export const ROOT = join(import.meta.dirname, '..', '..');

/** A running `m serve` on a fresh data directory. */
export interface ServedPlatform {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** PID of the server process itself (its CPU is what the verdict judges). */
  pid: number;
  /** Administrator's password, set on first start. */
  password: string;
  /** Stops the server (SIGTERM, so a `--cpu-prof` profile is written) and removes its data directory. */
  stop(): Promise<void>;
}

/** Options of {@link startPlatform}. */
export interface StartOptions {
  /** Write a V8 CPU profile of the server (`node --cpu-prof`) into this directory when it stops. */
  cpuProfileDir?: string;
  /** Where the server's own log (stderr) goes; default: discarded. */
  logFile?: string;
}

/**
 * Starts MONOLITH (`m serve`, PGlite, the built-in apps) on a free port and a data directory of its own,
 * and resolves once it prints its Desk URL.
 */
export async function startPlatform(options: StartOptions = {}): Promise<ServedPlatform> {
  if (options.logFile) mkdirSync(dirname(options.logFile), { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'bench-reference-'));
  const password = `reference-${process.pid}-${Date.now()}`;
  const profile = options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : [];
  const child = spawn(
    process.execPath,
    [...profile, join(ROOT, 'bin', 'm.js'), 'serve', '--port', '0', '--data-dir', join(dir, 'data')],
    {
      cwd: ROOT,
      env: { ...process.env, PLATFORM_ADMIN_PASSWORD: password },
      stdio: ['ignore', 'pipe', options.logFile ? openSync(options.logFile, 'a') : 'ignore'],
    },
  );
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = await deskUrl(child);
    return { url, pid: child.pid!, password, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function deskUrl(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`m serve exited with ${code} before it listened`);
  });
  const found = (async () => {
    for await (const line of lines) {
      const match = /^Desk: (http:\/\/[^/]+)\//.exec(line);
      if (match) return match[1]!;
    }
    throw new Error('m serve closed its output before printing its URL');
  })();
  const url = await Promise.race([found, exited]);
  // Keep draining its output so a full pipe never blocks the server.
  child.stdout!.resume();
  return url;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}
