import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private nats-server started for one test file. */
export interface NatsServerHandle {
  /** `nats://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** The JetStream store directory (kept across {@link NatsServerHandle.restart}). */
  storeDir: string;
  /** Stops the server (SIGTERM by PID, SIGKILL if it lingers) and keeps the store. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same store (after {@link NatsServerHandle.stop}). */
  restart(): Promise<void>;
  /** Stops the server and removes the store directory. */
  dispose(): Promise<void>;
}

/**
 * Where nats-server is: `PLATFORM_NATS_SERVER_PATH`, the Debian paths, or `PATH`. The binary is installed by
 * scripts/ensure-system-deps.js (run by `npm test`); a missing one is a clear error, never a skipped test.
 */
export function locateNatsServer(): string {
  const fromEnv = process.env.PLATFORM_NATS_SERVER_PATH;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const p of ['/usr/sbin/nats-server', '/usr/bin/nats-server']) if (existsSync(p)) return p;
  const which = spawnSync('which', ['nats-server'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new Error(
    'nats-server is not installed: run `node scripts/ensure-system-deps.js` (or `apt-get install nats-server`), ' +
      'or set PLATFORM_NATS_SERVER_PATH.',
  );
}

/** A TCP port that was free a moment ago (bind to port 0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (child.pid) process.kill(child.pid, 'SIGTERM');
  });
}

/**
 * Starts `nats-server -a 127.0.0.1 -p <free port> -js -sd <temp dir>` and resolves once it accepts
 * connections. Stop it in `afterAll` with `dispose()`.
 */
export async function startNatsServer(): Promise<NatsServerHandle> {
  const binary = locateNatsServer();
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'desk-nats-'));
  let child: ChildProcess | undefined;
  let output = '';

  const launch = async () => {
    output = '';
    const proc = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout?.on('data', (d) => (output += String(d)));
    proc.stderr?.on('data', (d) => (output += String(d)));
    child = proc;
    try {
      await waitFor(
        async () => {
          if (proc.exitCode !== null) throw new Error(`nats-server exited: ${output.slice(-500)}`);
          return (await canConnect(port)) && output.includes('Server is ready');
        },
        10_000,
        `nats-server on port ${port}`,
      );
    } catch (err) {
      await stopChild(proc);
      throw err;
    }
  };
  await launch();

  const stop = async () => {
    if (child) await stopChild(child);
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    stop,
    restart: launch,
    async dispose() {
      await stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
/**
 * Polls `check` until it returns true (or resolves to true), every `intervalMs`; rejects after `timeoutMs`
 * with the description. Tests wait on observable state this way instead of sleeping a fixed time.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
  what = 'the condition',
  intervalMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not ready yet (e.g. connection refused while a process starts)
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
