import { setMaxListeners } from 'node:events';
import type { MessagePort } from 'node:worker_threads';
import { planFromSource } from '../config/load-plan';
import { errorCode } from '../errors';
import { mergeCleanup } from './cleanup';
import { prepareGenerator } from './generator';
import type { ParentMessage, WorkerData, WorkerMessage } from './worker-protocol';

/**
 * Body of a generator thread: compile the plan from the validated source it was given, prepare, report
 * `ready`, wait for `start` (the shared second 0), run its shard and post snapshots; `stop` aborts.
 */
export async function workerMain(data: WorkerData, port: MessagePort): Promise<void> {
  const post = (m: WorkerMessage) => port.postMessage(m);
  const ac = new AbortController();
  // Every sleeping user listens for the abort: thousands of listeners are expected.
  setMaxListeners(0, ac.signal);
  let started: (startAt: number) => void = () => {};
  const start = new Promise<number>((resolve) => {
    started = resolve;
  });
  port.on('message', (m: ParentMessage) => {
    if (m.type === 'stop') {
      ac.abort();
      // Stopped before the start: there is no run to wait for.
      started(-1);
    } else started(m.startAt);
  });
  try {
    const plan = await planFromSource(data.source, data.configPath);
    const generator = await prepareGenerator(plan, data.target, data.shard);
    post({ type: 'ready' });
    const startAt = await start;
    if (startAt < 0) {
      await generator.close();
      post({ type: 'done', cleanup: mergeCleanup([]) });
      return;
    }
    const cleanup = await generator.run({
      shard: data.shard,
      startAt,
      signal: ac.signal,
      cleanup: data.cleanup,
      onSnapshots: (snapshots) => post({ type: 'snapshots', snapshots }),
    });
    post({ type: 'done', cleanup });
  } catch (err) {
    post({ type: 'failed', code: errorCode(err), message: (err as Error).message });
  } finally {
    port.close();
  }
}
