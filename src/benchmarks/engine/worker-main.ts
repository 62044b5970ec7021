import type { MessagePort } from 'node:worker_threads';
import { loadPlanFile } from '../config/load-plan';
import { errorCode } from '../errors';
import { runGenerator } from './generator';
import type { WorkerData, WorkerMessage } from './worker-protocol';

/** Body of a generator thread: plan, run its shard, post snapshots; `stop` from the parent aborts. */
export async function workerMain(data: WorkerData, port: MessagePort): Promise<void> {
  const post = (m: WorkerMessage) => port.postMessage(m);
  const ac = new AbortController();
  port.on('message', (m) => {
    if (m === 'stop') ac.abort();
  });
  try {
    const result = await loadPlanFile(data.configPath, process.env, data.overrides);
    if (!result.ok) throw new Error(`the configuration changed: ${result.issues[0]?.message}`);
    await runGenerator({
      plan: result.plan,
      target: data.target,
      shard: data.shard,
      startAt: data.startAt,
      signal: ac.signal,
      onSnapshots: (snapshots) => post({ type: 'snapshots', snapshots }),
    });
    post({ type: 'done' });
  } catch (err) {
    post({ type: 'failed', code: errorCode(err), message: (err as Error).message });
  } finally {
    port.close();
  }
}
