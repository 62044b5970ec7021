import type { PlanSource } from '../config/plan';
import type { TargetInfo } from '../target/target-info';
import type { CleanupSummary } from './cleanup';
import type { IntervalSnapshot } from './recorder';
import type { Shard } from './types';

/**
 * `workerData` of a generator thread. It carries the inputs of the plan the main thread validated and
 * reported (the exact YAML text, the variables it references, the overrides): the thread compiles its
 * own copy from them (compiled templates are functions and cannot cross threads) and never reads the
 * file again. The target is passed as discovered.
 */
export interface WorkerData {
  kind: 'desk-load-generator';
  /** Where the file was (resolves relative factory modules); not read. */
  configPath: string;
  source: PlanSource;
  target: TargetInfo;
  shard: Shard;
  cleanup: boolean;
}

/** Messages from a generator thread: `ready` once prepared, then snapshots, then `done` or `failed`. */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'snapshots'; snapshots: IntervalSnapshot[] }
  | { type: 'done'; cleanup: CleanupSummary }
  | { type: 'failed'; code: string; message: string };

/** Messages to a generator thread: start at a shared second 0, or stop early. */
export type ParentMessage = { type: 'start'; startAt: number } | { type: 'stop' };

/** Tells whether `data` is a generator thread's workerData (the built entry starts itself as the worker). */
export function isWorkerData(data: unknown): data is WorkerData {
  return (data as WorkerData | null)?.kind === 'desk-load-generator';
}
