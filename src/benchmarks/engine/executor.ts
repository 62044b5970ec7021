import { errorCode } from '../errors';
import type { ScenarioRunner } from '../scenarios/runner';
import { classify } from './outcome';
import type { Recorder } from './recorder';
import type { Runtime, VirtualUser } from './virtual-user';

/** This thread's share of the users and of the arrival rate. */
export interface Shard {
  index: number;
  count: number;
}

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
}

/** An executor drives load until the planned duration is over (one file per executor, as in k6). */
export type Executor = (ctx: ExecutorContext) => Promise<void>;

/** The global ids of this shard's users, in spawn order (user `i` starts at `i / spawnRate` s). */
export function shardUsers(peak: number, shard: Shard): number[] {
  const ids: number[] = [];
  for (let i = shard.index; i < peak; i += shard.count) ids.push(i);
  return ids;
}

/** Picks a runner by `weight` (docs/load-testing.md#load-models). */
export function weightedPicker(runners: ScenarioRunner[]): () => ScenarioRunner {
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
 * Runs one iteration and records it, latency measured from `startedMs` (a `performance.now()` value).
 * Resolves to false when no response came back (the caller may back off).
 */
export async function timedIteration(
  runner: ScenarioRunner,
  user: VirtualUser,
  recorder: Recorder,
  startedMs: number,
): Promise<boolean> {
  const plan = runner.plan;
  try {
    const res = await runner.iterate(user);
    const latencyUs = (performance.now() - startedMs) * 1000;
    recorder.record(plan.index, latencyUs, classify(res.status, plan.expectStatus), res.status);
    return true;
  } catch (err) {
    recorder.error(plan.index, errorCode(err));
    return false;
  }
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
