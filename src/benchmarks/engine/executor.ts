import { judge } from '../checks/judge';
import { errorCode } from '../errors';
import type { ScenarioRunner } from '../scenarios/runner';
import type { RenderContext } from '../template/template';
import type { HttpResponse } from './http-message';
import type { Recorder } from './recorder';
import type { Pause, Runtime, Shard } from './types';
import type { VirtualUser } from './virtual-user';

/** Everything an executor runs with. */
export interface ExecutorContext {
  rt: Runtime;
  runners: ScenarioRunner[];
  recorder: Recorder;
  shard: Shard;
  /** Epoch ms of the run's second 0, shared by every thread. */
  startAt: number;
  /** Aborted to stop early (Ctrl-C). */
  signal: AbortSignal;
  /** The users' pause within an iteration, cut short by the end of the run or its abort. */
  pause: Pause;
}

/** An executor drives load until the planned duration is over (one file per executor, as in k6). */
export type Executor = (ctx: ExecutorContext) => Promise<void>;

/**
 * Splits a shard into `parts` shards that together take exactly its users, arrivals and data rows: part
 * `t` of shard `(i, n)` is `(i + n t, n parts)`. The shard's `j`-th user is `i + n j`, and part `t` takes
 * every `j` equal to `t` modulo `parts`, which are the ids `i + n t` modulo `n parts`; arrivals and data
 * rows are numbered and split the same way. So a worker process may split its share between threads
 * without knowing how the other workers split theirs.
 */
export function splitShard(shard: Shard, parts: number): Shard[] {
  return Array.from({ length: parts }, (_, t) => ({
    index: shard.index + shard.count * t,
    count: shard.count * parts,
  }));
}

/** The global ids of this shard's users, in spawn order (user `i` starts at `i / spawnRate` s). */
export function shardUsers(peak: number, shard: Shard): number[] {
  const ids: number[] = [];
  for (let i = shard.index; i < peak; i += shard.count) ids.push(i);
  return ids;
}

/** Picks a runner by `weight` (docs/load-testing.md#load-models). */
export function weightedPicker(runners: ScenarioRunner[]): () => ScenarioRunner {
  if (runners.length === 1) {
    const only = runners[0]!;
    return () => only;
  }
  const total = runners.reduce((s, r) => s + r.plan.weight, 0);
  return () => {
    let r = Math.random() * total;
    for (const runner of runners) {
      r -= runner.plan.weight;
      if (r < 0) return runner;
    }
    return runners[runners.length - 1]!;
  };
}

/**
 * Runs one iteration and records it, latency measured from `startedMs` (a `performance.now()` value), and
 * its response judged by the scenario's checks. A runner that records itself (a flow: one record per step
 * and one for the whole) does so through `timed`. Resolves to false when no response came back (the
 * caller may back off).
 */
export function timedIteration(
  runner: ScenarioRunner,
  user: VirtualUser,
  recorder: Recorder,
  startedMs: number,
): Promise<boolean> {
  const plan = runner.plan;
  let ctx: RenderContext | undefined;
  try {
    if (runner.feeder) {
      const row = runner.feeder.next();
      if (!row) {
        // A `unique` data file ran out: every further iteration says so.
        recorder.error(plan.index, 'data_exhausted');
        return Promise.resolve(false);
      }
      ctx = { data: row };
    }
    if (runner.timed) return runner.timed(user, recorder, startedMs, ctx);
  } catch (err) {
    // As from an async function: a throw is a rejection.
    return Promise.reject(err);
  }
  // Promise reactions rather than an async function: one step less between the response and its record.
  const failed = (err: unknown) => {
    recorder.error(plan.index, errorCode(err));
    return false;
  };
  let sent: Promise<HttpResponse>;
  try {
    sent = runner.iterate(user, ctx);
  } catch (err) {
    return Promise.resolve(failed(err));
  }
  return sent.then((res) => {
    try {
      const latencyMs = (res.receivedMs ?? performance.now()) - startedMs;
      const { outcome, failures } = judge(plan.checks, res, latencyMs);
      recorder.record(plan.index, latencyMs * 1000, outcome, res.status, failures);
      if (recorder.timesServer) recorder.serverTiming(plan.index, res);
      return true;
    } catch (err) {
      return failed(err);
    }
  }, failed);
}

/** A pause drawn uniformly from a `[min, max]` range of seconds, in ms (a user's think time). */
export function thinkMs([min, max]: readonly [number, number]): number {
  return (min + Math.random() * (max - min)) * 1000;
}

/** Sleeps `ms`, waking early when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
