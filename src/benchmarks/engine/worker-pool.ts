import { Worker } from 'node:worker_threads';
import type { ErrorCode } from '../../protocol';
import { harnessError } from '../errors';
import type { IntervalSnapshot } from './recorder';
import type { ParentMessage, WorkerData, WorkerMessage } from './worker-protocol';

/** Time between the last thread reporting ready and second 0. */
const START_DELAY_MS = 100;

/**
 * Starts a generator thread. From source (a `.ts` module) the thread registers tsx and imports
 * `worker-entry.ts`; from the built bundle it runs the bundle itself, whose entry recognises the
 * generator's `workerData`.
 */
function startWorker(data: WorkerData): Worker {
  const self = import.meta.url;
  if (self.endsWith('.js')) return new Worker(new URL(self), { workerData: data });
  const entry = new URL('./worker-entry.ts', self).href;
  const code = `import('tsx/esm/api').then((m) => m.register()).then(() => import(${JSON.stringify(entry)}))`;
  return new Worker(code, { eval: true, workerData: data });
}

/**
 * Runs one generator thread per shard: waits until every thread is prepared, starts them all at one
 * second 0 (resolving `onStart` with it), forwards their snapshots, and resolves when all are done.
 * Aborting `signal` stops every thread early. Rejects with the first thread failure.
 */
export function runWorkers(
  shards: WorkerData[],
  onStart: (startAt: number) => void,
  onSnapshots: (s: IntervalSnapshot[]) => void,
  signal: AbortSignal,
): Promise<void> {
  const workers = shards.map(startWorker);
  const send = (m: ParentMessage) => {
    for (const w of workers) w.postMessage(m);
  };
  const onAbort = () => send({ type: 'stop' });
  signal.addEventListener('abort', onAbort, { once: true });
  let ready = 0;
  const runs = workers.map(
    (w) =>
      new Promise<void>((resolve, reject) => {
        let done = false;
        w.on('message', (m: WorkerMessage) => {
          if (m.type === 'ready') {
            if (++ready === workers.length) {
              const startAt = Date.now() + START_DELAY_MS;
              onStart(startAt);
              send({ type: 'start', startAt });
            }
          } else if (m.type === 'snapshots') onSnapshots(m.snapshots);
          else if (m.type === 'done') done = true;
          // The worker relays the code of what it caught (the harness's own, or a transport's such as
          // ECONNREFUSED) unchanged, so the run fails with the code the worker saw.
          else reject(harnessError(m.code as ErrorCode, m.message));
        });
        w.on('error', reject);
        w.on('exit', (code) =>
          done ? resolve() : reject(harnessError('worker_failed', `a generator thread exited with ${code}`)),
        );
      }),
  );
  return Promise.all(runs)
    .then(() => undefined)
    .finally(() => {
      signal.removeEventListener('abort', onAbort);
      for (const w of workers) void w.terminate();
    });
}
