/**
 * The parent side of bench/support/post-generator.mjs: starts the load generator as a child process and runs
 * one load through it, measuring this process's CPU (`process.cpuUsage`: every thread, the libuv pool
 * included) over exactly the time the generator sends.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

/** One load: where to send, with which headers, every body once, `connections` at a time. */
export interface PostLoad {
  url: string;
  path: string;
  headers: Record<string, string>;
  bodies: string[];
  connections: number;
  /** The status every answer must have (default 200). */
  status?: number;
  /** A header sent with a fresh random value on every request (`Idempotency-Key`). */
  keyHeader?: string;
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

/** Sends `load` from `generator`; throws on any unexpected answer. */
export async function runLoad(generator: ChildProcess, load: PostLoad): Promise<LoadFigures> {
  generator.send({ type: 'load', ...load });
  await reply(generator);
  const cpu = process.cpuUsage();
  generator.send({ type: 'go' });
  const result = await reply(generator);
  const used = process.cpuUsage(cpu);
  if (result.type !== 'done') throw new Error(`${load.url}${load.path}: ${result.message}`);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: result.ms! };
}
