import type { LoadPlan } from '../config/plan';
import { createRunners } from '../scenarios';
import { createEncoder } from '../target/encoder';
import type { TargetInfo } from '../target/target-info';
import { type CleanupSummary, cleanUp } from './cleanup';
import { CreatedRecords } from './created-records';
import { sleep } from './executor';
import { EXECUTORS } from './executors';
import { HttpClient } from './http-client';
import { type IntervalSnapshot, Recorder } from './recorder';
import type { Pause, Runtime, Shard } from './types';

/** How a prepared generator runs. */
export interface RunOptions {
  shard: Shard;
  /** Epoch ms of second 0, shared by every thread. */
  startAt: number;
  signal: AbortSignal;
  /** Receives each finished second (and the rest at the end). */
  onSnapshots: (snapshots: IntervalSnapshot[]) => void;
  /** Delete the records the run created once the load is over (`--cleanup`). */
  cleanup?: boolean;
  /**
   * The snapshots stay in this thread (a run without generator threads): histograms are handed over as
   * objects instead of being encoded and decoded again every second.
   */
  inThread?: boolean;
}

/** A load generator ready to start: connections, encoder (JWKS fetched) and scenario runners built. */
export interface Generator {
  /**
   * Runs this thread's share of the plan to its end, cleans up if asked, then releases the connections;
   * resolves to what the run left in (or removed from) the target.
   */
  run(o: RunOptions): Promise<CleanupSummary>;
  /** Releases the connections without running. */
  close(): Promise<void>;
}

/**
 * Prepares one generator (one per thread): its own connection pools, body encoder and scenario runners
 * (factory modules imported). Everything slow happens here, before second 0, so no arrival of the open
 * model is already late when the load starts.
 */
export async function prepareGenerator(
  plan: LoadPlan,
  target: TargetInfo,
  shard: Shard = { index: 0, count: 1 },
): Promise<Generator> {
  const http = new HttpClient({
    connections: plan.http.connections,
    timeoutMs: plan.http.timeoutMs,
    hostHeader: plan.hostHeader,
  });
  try {
    const encoder = await createEncoder(target.security, plan.targetUrl);
    const created = new CreatedRecords();
    const rt: Runtime = { plan, target, http, encoder, created, shard };
    const runners = await createRunners(rt);
    return {
      async run(o) {
        // The open model measures the event-loop delay from its own wake-ups (see Recorder).
        const recorder = new Recorder(
          plan.slots.length,
          o.startAt,
          Date.now,
          plan.model.kind === 'open',
          o.inThread !== true,
          plan.serverTiming,
        );
        const timer = setInterval(() => o.onSnapshots(recorder.flush()), 1000);
        let flushed = false;
        const finalFlush = () => {
          clearInterval(timer);
          if (!flushed) o.onSnapshots(recorder.flush(true));
          flushed = true;
        };
        try {
          await EXECUTORS[plan.model.kind]({
            rt,
            runners,
            recorder,
            shard: o.shard,
            startAt: o.startAt,
            signal: o.signal,
            pause: pauseUntil(o.startAt + plan.durationSeconds * 1000, o.signal),
          });
          finalFlush();
          return await cleanUp(rt, created, o.cleanup === true);
        } finally {
          finalFlush();
          recorder.close();
          await http.close();
        }
      },
      close: () => http.close(),
    };
  } catch (err) {
    await http.close();
    throw err;
  }
}

/**
 * A user's pause that ends by epoch ms `endAt` or when `signal` aborts, whichever comes first; resolves
 * to false when it was cut short.
 */
function pauseUntil(endAt: number, signal: AbortSignal): Pause {
  return async (ms) => {
    const wanted = Date.now() + ms;
    const until = Math.min(wanted, endAt);
    // A timer may fire up to a millisecond before the wall clock reaches its time: a pause cut by the end
    // of the run must end after it, or the user would start one more iteration.
    while (Date.now() < until && !signal.aborted) await sleep(until - Date.now(), signal);
    return wanted <= endAt && !signal.aborted;
  };
}
