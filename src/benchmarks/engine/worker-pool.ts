import { Worker } from 'node:worker_threads';
import type { ErrorCode } from '../../protocol';
import { harnessError } from '../errors';
import type { CleanupSummary } from './cleanup';
import type { IntervalSnapshot } from './recorder';
import type { ParentMessage, WorkerData, WorkerMessage } from './worker-protocol';

/** Time between the last thread reporting ready and second 0. */
const START_DELAY_MS = 100;

/**
 * Starts a generator thread. From source (a `.ts` module) the thread registers tsx and imports
 * `worker-entry.ts`; from the built bundle it runs the bundle's entry, `load-test.js` beside this chunk
 * (scripts/build-harness.js), which recognises the generator's `workerData`.
 */
function startWorker(data: WorkerData): Worker {
  const self = import.meta.url;
  if (self.endsWith('.js')) return new Worker(new URL('./load-test.js', self), { workerData: data });
  const entry = new URL('./worker-entry.ts', self).href;
  const code = `import('tsx/esm/api').then((m) => m.register()).then(() => import(${JSON.stringify(entry)}))`;
  return new Worker(code, { eval: true, workerData: data });
}

/** Generator threads started and preparing. */
export interface ThreadPool {
  /** Resolves once every thread is prepared; rejects with the first failure before that. */
  ready: Promise<void>;
  /** Starts every thread at one second 0 (epoch ms). */
  start(startAt: number): void;
  /** Resolves to each thread's cleanup summary once all are done; rejects with the first failure. */
  done: Promise<CleanupSummary[]>;
}

/**
 * Starts one generator thread per shard and forwards their snapshots. They prepare at once; `start`
 * gives them their common second 0. Aborting `signal` stops every thread early.
 */
export function startThreads(
  shards: WorkerData[],
  onSnapshots: (s: IntervalSnapshot[]) => void,
  signal: AbortSignal,
): ThreadPool {
  const workers = shards.map(startWorker);
  const send = (m: ParentMessage) => {
    for (const w of workers) w.postMessage(m);
  };
  const onAbort = () => send({ type: 'stop' });
  signal.addEventListener('abort', onAbort, { once: true });
  let prepared = 0;
  let allReady: () => void = () => {};
  const readyOnly = new Promise<void>((resolve) => {
    allReady = resolve;
  });
  const runs = workers.map(
    (w) =>
      new Promise<CleanupSummary>((resolve, reject) => {
        let done: CleanupSummary | undefined;
        w.on('message', (m: WorkerMessage) => {
          if (m.type === 'ready') {
            if (++prepared === workers.length) allReady();
          } else if (m.type === 'snapshots') onSnapshots(m.snapshots);
          else if (m.type === 'done') done = m.cleanup;
          // The worker relays the code of what it caught (the harness's own, or a transport's such as
          // ECONNREFUSED) unchanged, so the run fails with the code the worker saw.
          else reject(harnessError(m.code as ErrorCode, m.message));
        });
        w.on('error', reject);
        w.on('exit', (code) =>
          done
            ? resolve(done)
            : reject(harnessError('worker_failed', `a generator thread exited with ${code}`)),
        );
      }),
  );
  const done = Promise.all(runs).finally(() => {
    signal.removeEventListener('abort', onAbort);
    for (const w of workers) void w.terminate();
  });
  // A failure while preparing fails `ready` too (and is not left unhandled when nobody awaits `done` yet).
  const ready = Promise.race([readyOnly, done.then(() => undefined)]);
  done.catch(() => undefined);
  return { ready, start: (startAt) => send({ type: 'start', startAt }), done };
}

/**
 * Runs one generator thread per shard: waits until every thread is prepared, starts them all at one
 * second 0 (resolving `onStart` with it), forwards their snapshots, and resolves when all are done.
 * Aborting `signal` stops every thread early. Rejects with the first thread failure; resolves to each
 * thread's cleanup summary.
 */
export async function runWorkers(
  shards: WorkerData[],
  onStart: (startAt: number) => void,
  onSnapshots: (s: IntervalSnapshot[]) => void,
  signal: AbortSignal,
): Promise<CleanupSummary[]> {
  const pool = startThreads(shards, onSnapshots, signal);
  await pool.ready;
  const startAt = Date.now() + START_DELAY_MS;
  onStart(startAt);
  pool.start(startAt);
  return pool.done;
}
