/**
 * Searches for personal data where it must not be: files read in chunks (a heap snapshot, a dump), every
 * file of a directory (PostgreSQL's tables and write-ahead log), and a heap snapshot of a running Node
 * process taken on demand (`--heapsnapshot-signal=SIGUSR2`). Shared by the fault and end-to-end tests.
 */
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { waitUntil } from '../../helpers/nats-server';

/** True when `needle` occurs in the file (read in chunks, a match across two chunks included). */
export async function fileContains(path: string, needle: string): Promise<boolean> {
  const wanted = Buffer.from(needle);
  let tail = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const window = Buffer.concat([tail, chunk as Buffer]);
    if (window.includes(wanted)) return true;
    tail = window.subarray(Math.max(0, window.length - wanted.length + 1));
  }
  return false;
}

/**
 * Every file under `dir` whose bytes contain `needle`, as paths relative to `dir`. A server still running
 * there may remove or rename a file between the listing and its read (PostgreSQL rewrites its relation cache
 * file and recycles write-ahead log segments under new names): the search then starts over, so the answer
 * always comes from one listing whose every file was read, and gives up after a few tries.
 */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const bytes = Buffer.from(needle, 'utf8');
  for (let pass = 1; pass <= 5; pass++) {
    const found = await searchOnce(dir, bytes);
    if (found) return found;
  }
  throw new Error(`files under ${dir} kept disappearing while they were searched`);
}

/** One pass of {@link filesContaining}; undefined when a listed file was gone before it was read. */
async function searchOnce(dir: string, bytes: Buffer): Promise<string[] | undefined> {
  const found: string[] = [];
  try {
    for (const entry of await readdir(dir, { recursive: true })) {
      const path = join(dir, entry);
      if (!(await stat(path)).isFile()) continue;
      if ((await readFile(path)).includes(bytes)) found.push(entry);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return found;
}

/**
 * SIGUSR2 to the process `pid` (started with `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<snapshotDir>`),
 * then the snapshot's path once it is complete: V8 writes it synchronously on the process's main thread, so
 * once the file exists and the process answers `url` again, it is whole.
 */
export async function heapSnapshot(pid: number, snapshotDir: string, url: string): Promise<string> {
  const before = new Set(readdirSync(snapshotDir));
  process.kill(pid, 'SIGUSR2');
  let file: string | undefined;
  await waitUntil(
    () => {
      file = readdirSync(snapshotDir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
      return file !== undefined;
    },
    120_000,
    'the heap snapshot file appears',
  );
  await waitUntil(
    async () => (await fetch(`${url}/api/v1/security/config`)).ok,
    120_000,
    'the process answers',
  );
  return join(snapshotDir, file!);
}

/** The established connections to 127.0.0.1:`port`, with the bytes each holds unread, from the kernel's table (Linux). */
export function connectionsAt(port: number): number[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6']
    .filter((table) => existsSync(table))
    .flatMap((table) => readFileSync(table, 'utf8').split('\n').slice(1))
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, , state]) => local?.endsWith(`:${hexPort}`) && state === '01')
    .map(([, , , , queues]) => Number.parseInt(queues?.split(':')[1] ?? '0', 16));
}

/**
 * Runs `send()` while the process `pid` listening on `port` is stopped (SIGSTOP), waits until a request
 * reached it (bytes wait unread in its socket: whoever forwarded it now waits for the answer), runs
 * `whileHeld()` at that moment, then lets the process go on (SIGCONT) and returns both results.
 */
export async function whileHeldAt<T, S>(
  pid: number,
  port: number,
  send: () => Promise<T>,
  whileHeld: () => Promise<S>,
): Promise<{ held: S; answer: T }> {
  // No kept-alive connection left from earlier requests: the stopped process's idle timer would close one as
  // it resumes, before reading the request waiting in it. The request then opens a new connection.
  await waitUntil(() => connectionsAt(port).length === 0, 60_000, 'the idle connections closed');
  process.kill(pid, 'SIGSTOP');
  try {
    const answer = send();
    answer.catch(() => {});
    await waitUntil(
      () => connectionsAt(port).some((unread) => unread > 0),
      60_000,
      'the request was forwarded',
    );
    const held = await whileHeld();
    process.kill(pid, 'SIGCONT');
    return { held, answer: await answer };
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}
