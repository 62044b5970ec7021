import type { LoadPlan } from '../config/plan';
import { createRunners } from '../scenarios';
import { createEncoder } from '../target/encoder';
import type { TargetInfo } from '../target/target-info';
import type { Shard } from './executor';
import { EXECUTORS } from './executors';
import { HttpClient } from './http-client';
import { type IntervalSnapshot, Recorder } from './recorder';

/** One load generator: a thread's share of the plan. */
export interface GeneratorOptions {
  plan: LoadPlan;
  target: TargetInfo;
  shard: Shard;
  startAt: number;
  signal: AbortSignal;
  /** Receives each finished second (and the rest at the end). */
  onSnapshots: (snapshots: IntervalSnapshot[]) => void;
}

/**
 * Runs one generator to the end of the plan: its own connection pools, body encoder, scenario runners
 * and recorder, with the plan's executor. Snapshots leave once per second.
 */
export async function runGenerator(o: GeneratorOptions): Promise<void> {
  const { plan } = o;
  const http = new HttpClient({
    connections: plan.http.connections,
    timeoutMs: plan.http.timeoutMs,
    hostHeader: plan.hostHeader,
  });
  const recorder = new Recorder(plan.scenarios.length, o.startAt);
  const timer = setInterval(() => o.onSnapshots(recorder.flush()), 1000);
  try {
    const encoder = await createEncoder(o.target.security, plan.targetUrl);
    const rt = { plan, target: o.target, http, encoder };
    const runners = await createRunners(rt);
    await EXECUTORS[plan.model.kind]({
      rt,
      runners,
      recorder,
      shard: o.shard,
      startAt: o.startAt,
      signal: o.signal,
    });
  } finally {
    clearInterval(timer);
    o.onSnapshots(recorder.flush(true));
    recorder.close();
    await http.close();
  }
}
