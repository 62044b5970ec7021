/**
 * The parent side of bench/support/post-generator.mjs: starts the load generator as a child process and runs
 * one load through it, measuring the serving process's CPU (by default this process's `process.cpuUsage`:
 * every thread, the libuv pool included) over exactly the time the generator sends.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

/** One load: where to send, with which headers, every body once (or every path read once), `connections` at a time. */
export type PostLoad = (Posts | Gets) & {
  url: string;
  headers: Record<string, string>;
  connections: number;
  /** The status every answer must have (default 200). */
  status?: number;
  /** A header sent with a fresh random value on every request (`Idempotency-Key`). */
  keyHeader?: string;
};

/** Every body POSTed once to `path`. */
interface Posts {
  path: string;
  bodies: string[];
}

/** Every path read once by a GET. */
interface Gets {
  paths: string[];
}

/** What a load cost this process and how long it took. */
export interface LoadFigures {
  cpuMs: number;
  wallMs: number;
}

/** Starts the load generator, reused for every load. */
export function startGenerator(): ChildProcess {
  return fork(join(import.meta.dirname, 'post-generator.mjs'), [], {
    cwd: join(import.meta.dirname, '..', '..'),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function reply(child: ChildProcess): Promise<{ type: string; ms?: number; message?: string }> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the load generator exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as { type: string; ms?: number; message?: string });
    });
  });
}

/** CPU milliseconds used so far by this process, every thread (`process.cpuUsage`). */
function ownCpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/**
 * Sends `load` from `generator`; throws on any unexpected answer. `cpuMs` reads the serving process's CPU
 * so far (default: this process's own), taken just before the generator starts and just after it is done.
 */
export async function runLoad(
  generator: ChildProcess,
  load: PostLoad,
  cpuMs: () => number = ownCpuMs,
): Promise<LoadFigures> {
  generator.send({ type: 'load', ...load });
  await reply(generator);
  const before = cpuMs();
  generator.send({ type: 'go' });
  const result = await reply(generator);
  const used = cpuMs() - before;
  if (result.type !== 'done') throw new Error(`${load.url}: ${result.message}`);
  return { cpuMs: used, wallMs: result.ms! };
}
