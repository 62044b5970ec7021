import type { PlanOverrides } from '../config/load-plan';
import type { TargetInfo } from '../target/target-info';
import type { Shard } from './executor';
import type { IntervalSnapshot } from './recorder';

/**
 * `workerData` of a generator thread. The worker rebuilds the plan from the same file and overrides
 * (compiled templates are functions and cannot cross threads); the target is passed as discovered.
 */
export interface WorkerData {
  kind: 'desk-load-generator';
  configPath: string;
  overrides: PlanOverrides;
  target: TargetInfo;
  shard: Shard;
}

/** Messages from a generator thread: `ready` once prepared, then snapshots, then `done` or `failed`. */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'snapshots'; snapshots: IntervalSnapshot[] }
  | { type: 'done' }
  | { type: 'failed'; code: string; message: string };

/** Messages to a generator thread: start at a shared second 0, or stop early. */
export type ParentMessage = { type: 'start'; startAt: number } | { type: 'stop' };

/** Tells whether `data` is a generator thread's workerData (the built entry starts itself as the worker). */
export function isWorkerData(data: unknown): data is WorkerData {
  return (data as WorkerData | null)?.kind === 'desk-load-generator';
}
