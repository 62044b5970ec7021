/**
 * A real `m serve` (MONOLITH) for the Desk benchmarks: a child process on a free port (`--port 0`, the URL
 * read from its output) with the given data directory, signed in through `POST /api/method/login`.
 * `stop()` sends SIGTERM and waits, so the database is closed before the directory is reused or removed.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { stopProcess } from '../../test/e2e/support/desk-target';

const root = join(import.meta.dirname, '..', '..');

/** The Administrator password the benchmark servers are started with. */
export const BENCH_ADMIN_PASSWORD = 'bench-admin-password';

/** A started server. */
export interface DeskServer {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  /** The Desk URL (`<origin>/desk/`). */
  deskUrl: string;
  /** The server's process id (for its resident set in /proc). */
  pid: number;
  /** Stops the process (SIGTERM, SIGKILL after 20 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Options of {@link startDeskServer}. */
export interface DeskServerOptions {
  dataDir: string;
  /** Extra environment (platform settings such as `PLATFORM_CORE_SERVICES`). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Starts `m serve --port 0 --data-dir <dataDir>` with the sample apps and waits for the Desk URL. */
export async function startDeskServer(options: DeskServerOptions): Promise<DeskServer> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Settings of another deployment in the caller's environment must not leak in.
  delete env.PLATFORM_MODE;
  delete env.PLATFORM_NATS_URL;
  delete env.PLATFORM_PUBLIC_URL;
  delete env.PLATFORM_DATABASE_URL;
  Object.assign(env, {
    PLATFORM_APPS: 'crm,stock',
    PLATFORM_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
    ...options.env,
  });
  const child = spawn(
    process.execPath,
    [join(root, 'bin', 'm.js'), 'serve', '--port', '0', '--data-dir', options.dataDir],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const stop = () => stopProcess(child);
  try {
    const deskUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`m serve printed no Desk URL within ${options.timeoutMs ?? 60_000} ms:\n${output}`),
          ),
        options.timeoutMs ?? 60_000,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const url = /^Desk: (http\S+\/desk\/)$/m.exec(output)?.[1];
        if (url) {
          clearTimeout(timer);
          resolve(url);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`m serve exited (${code ?? signal}) before it was ready:\n${output}`));
      });
    });
    return { origin: new URL(deskUrl).origin, deskUrl, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
