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
  startAt: number;
}

/** Messages from a generator thread. */
export type WorkerMessage =
  | { type: 'snapshots'; snapshots: IntervalSnapshot[] }
  | { type: 'done' }
  | { type: 'failed'; code: string; message: string };

/** Tells whether `data` is a generator thread's workerData (the built entry starts itself as the worker). */
export function isWorkerData(data: unknown): data is WorkerData {
  return (data as WorkerData | null)?.kind === 'desk-load-generator';
}
