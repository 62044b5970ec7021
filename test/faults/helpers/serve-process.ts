import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Administrator's password in every server these tests start. */
export const ADMIN_PASSWORD = 'fault-test-password';

/** A `m serve` child process. */
export interface ServeProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` once started. */
  url: string;
  output(): string;
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not exited after 15 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** A child process whose stdout and stderr are collected, in arrival order, into one string. */
export interface WatchedProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Spawns `command` (stdin ignored) and collects what it writes on stdout and stderr. */
export function spawnWatched(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): WatchedProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Spawns `node bin/m.js <args>` (PORT and HOST cleared, Administrator's password set). */
export function spawnM(args: string[], env: Record<string, string> = {}): WatchedProcess {
  return spawnWatched(process.execPath, ['bin/m.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, PLATFORM_ADMIN_PASSWORD: ADMIN_PASSWORD, PORT: '', HOST: '', ...env },
  });
}

/** True while a process with `pid` exists (signal 0 only checks). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs every process in `pids` still running, so a test that failed part-way leaves none behind. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Resolves with the first match of `pattern` in the process output; rejects when the process exits first. */
export function waitForOutput(proc: WatchedProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(proc.output());
      if (match) {
        proc.child.stdout!.off('data', check);
        proc.child.stderr!.off('data', check);
        resolve(match);
      }
    };
    proc.child.stdout!.on('data', check);
    proc.child.stderr!.on('data', check);
    check();
    proc.exited.then((code) => reject(new Error(`process exited with ${code}:\n${proc.output()}`)));
  });
}

/** Starts `m serve --port 0 --data-dir <dataDir> ...extra` and waits for its Desk line. */
export async function startServe(dataDir: string, extra: string[] = [], env: Record<string, string> = {}) {
  const proc = spawnM(['serve', '--port', '0', '--data-dir', dataDir, ...extra], env);
  const match = await waitForOutput(proc, /Desk: (http:\/\/\S+)\/desk\//);
  const served: ServeProcess = {
    ...proc,
    url: match[1]!,
    async stop() {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.child.exitCode;
      const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
      proc.child.kill('SIGTERM');
      const code = await proc.exited;
      clearTimeout(timer);
      return code;
    },
  };
  return served;
}

/** Signs in as Administrator: the session cookie, the CSRF token and the Origin for unsafe requests. */
export async function signIn(url: string): Promise<Record<string, string>> {
  const res = await fetch(`${url}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ usr: 'Administrator', pwd: ADMIN_PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  const { csrf_token } = (await res.json()) as { csrf_token: string };
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': csrf_token, origin: url };
}

/** A kB figure of `/proc/<pid>/status`: `VmRSS` (resident now) or `VmHWM` (the peak so far). */
export function memoryKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
}

/** What a streamed upload got back: a status and body, or the socket error that ended it. */
export interface UploadResult {
  status?: number;
  body?: string;
  error?: string;
  sentBytes: number;
}

/**
 * POSTs up to `totalBytes` of `x` to `url`, 1 MiB at a time with back-pressure, declaring the length or sending
 * it chunked; stops writing as soon as the server answers or closes. Never throws.
 */
export function streamUpload(
  url: string,
  totalBytes: number,
  options: { declareLength: boolean; headers?: Record<string, string> },
): Promise<UploadResult> {
  return new Promise((resolve) => {
    const target = new URL(url);
    let sent = 0;
    let done = false;
    const finish = (result: Omit<UploadResult, 'sentBytes'>) => {
      if (done) return;
      done = true;
      resolve({ ...result, sentBytes: sent });
    };
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.declareLength ? { 'content-length': String(totalBytes) } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => {
          finish({ status: res.statusCode, body });
          req.destroy();
        });
        res.on('error', () => finish({ status: res.statusCode, body }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => finish({ error: err.code ?? err.message }));
    const chunk = Buffer.alloc(1 << 20, 0x78);
    const pump = () => {
      while (!done && sent < totalBytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!done) req.end();
    };
    pump();
  });
}
