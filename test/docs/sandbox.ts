import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '..', '..');

/** What a command did: its exit status (null when killed), its output, and what the test found wrong. */
export interface CommandRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Set when the command exited 0 but did not do what the document says. */
  problem?: string;
}

/** Options of {@link Sandbox.run}. */
export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Written to the command's standard input, which is then closed. */
  input?: string;
  /** Bound of the wait; the command is killed after it (default 60 s). */
  timeoutMs?: number;
}

/** The `m serve` shared by the commands that need a running server. */
export interface SharedServer {
  url: string;
  pid: number;
}

/** The environment every command runs in: no PLATFORM_* settings, PORT or HOST from the caller's shell. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('PLATFORM_') && !key.startsWith('LOAD_') && key !== 'PORT' && key !== 'HOST')
      env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * A temporary folder for the commands a document tells its reader to run, and the one `m serve` they share
 * (default password, free port, its own data directory), started on first use and stopped by
 * {@link Sandbox.dispose}.
 */
export class Sandbox {
  /** The temporary folder; everything the commands write goes under it. */
  readonly temp = mkdtempSync(join(tmpdir(), 'documented-commands-'));
  private serverProcess: ChildProcess | undefined;
  private serverStart: Promise<SharedServer> | undefined;
  private serverOutput = '';
  private readonly flows = new Map<string, Promise<unknown>>();

  /** A new empty folder under {@link temp}. */
  folder(name: string): string {
    const dir = join(this.temp, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** Runs `command args` and collects its output; never rejects. */
  run(command: string, args: string[], options: RunOptions = {}): Promise<CommandRun> {
    return new Promise((resolve) => {
      const child = spawn(command, args, {
        cwd: options.cwd ?? this.temp,
        env: cleanEnv(options.env),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const timer = setTimeout(() => {
        stderr += `\n[killed after ${options.timeoutMs ?? 60_000} ms]`;
        child.kill('SIGKILL');
      }, options.timeoutMs ?? 60_000);
      child.on('error', (err) => (stderr += `\n${err.message}`));
      // A command that exits without reading its input closes the pipe: not an error of the command.
      child.stdin.on('error', () => {});
      child.on('close', (status) => {
        clearTimeout(timer);
        resolve({ status, stdout, stderr });
      });
      child.stdin.end(options.input ?? '');
    });
  }

  /** Runs `node bin/m.js args`: what `m` and `npx m` run. */
  m(args: string[], options: RunOptions = {}): Promise<CommandRun> {
    return this.run(process.execPath, [join(ROOT, 'bin', 'm.js'), ...args], options);
  }

  /** Runs a `bash -c` script, for the commands a document gives as shell lines (curl, variables). */
  bash(script: string, options: RunOptions = {}): Promise<CommandRun> {
    return this.run('bash', ['-euo', 'pipefail', '-c', script], options);
  }

  /** Runs `flow` once per `key`; every later call gets the first call's result. */
  once<T>(key: string, flow: () => Promise<T>): Promise<T> {
    if (!this.flows.has(key)) this.flows.set(key, flow());
    return this.flows.get(key) as Promise<T>;
  }

  /**
   * The shared `m serve` (MONOLITH, the default apps, the default password `admin` the documents use, which
   * the server accepts on loopback only), started on first use: resolves once it prints its Desk URL.
   */
  server(): Promise<SharedServer> {
    this.serverStart ??= new Promise<SharedServer>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [join(ROOT, 'bin', 'm.js'), 'serve', '--port', '0', '--data-dir', this.folder('server-data')],
        { cwd: this.folder('server'), env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      this.serverProcess = child;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`m serve printed no Desk URL within 90 s:\n${this.serverOutput.slice(-2000)}`));
      }, 90_000);
      const check = (chunk: Buffer) => {
        this.serverOutput += chunk.toString();
        const match = /Desk: (http:\/\/\S+)\/desk\//.exec(this.serverOutput);
        if (match) {
          clearTimeout(timer);
          resolve({ url: match[1]!, pid: child.pid! });
        }
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`m serve exited ${code} before serving:\n${this.serverOutput.slice(-2000)}`));
      });
    });
    return this.serverStart;
  }

  /** Stops the shared server (SIGTERM, SIGKILL after 15 s); its exit status, or undefined when not started. */
  async stopServer(): Promise<number | null | undefined> {
    const child = this.serverProcess;
    if (!child) return undefined;
    this.serverProcess = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.kill('SIGTERM');
    const code = await exited;
    clearTimeout(timer);
    return code;
  }

  /** Stops the server and removes the temporary folder. */
  async dispose(): Promise<void> {
    await this.stopServer();
    rmSync(this.temp, { recursive: true, force: true });
  }
}

/** The last `lines` lines of `text`, for a failure message. */
export function tail(text: string, lines = 20): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
