import type { PlanSource } from '../config/plan';
import type { CleanupSummary } from '../engine/cleanup';
import type { IntervalSnapshot } from '../engine/recorder';
import type { Shard } from '../engine/types';
import type { TargetInfo } from '../target/target-info';

/**
 * NATS subjects and messages between `m benchmark --nats` (the coordinator) and `m benchmark worker`
 * processes. Idle workers announce themselves; the coordinator picks as many as it needs and assigns
 * each its share of the validated plan (request/reply); once all are prepared it publishes one start
 * instant; workers stream per-second snapshots (HDR histograms encoded), a heartbeat, and a final done.
 */
export const SUBJECTS = {
  /** Idle workers say so every second: {@link Hello}. */
  hello: 'desk.load.hello',
  /** Request to one worker: {@link Assignment}, answered by {@link AssignReply}. */
  assign: (worker: string) => `desk.load.worker.${worker}.assign`,
  /** Coordinator to the run's workers: {@link StartMessage}. */
  start: (run: string) => `desk.load.run.${run}.start`,
  /** Coordinator to the run's workers: stop now (Ctrl-C, abort_on_fail). */
  stop: (run: string) => `desk.load.run.${run}.stop`,
  /** Worker to coordinator: {@link SnapshotMessage}. */
  snapshots: (run: string) => `desk.load.run.${run}.snapshots`,
  /** Worker to coordinator, every second while running: {@link Hello}. */
  alive: (run: string) => `desk.load.run.${run}.alive`,
  /** Worker to coordinator: {@link DoneMessage}. */
  done: (run: string) => `desk.load.run.${run}.done`,
};

/** A worker's presence. */
export interface Hello {
  name: string;
}

/** One worker's share of a run. */
export interface Assignment {
  run: string;
  configPath: string;
  source: PlanSource;
  target: TargetInfo;
  shard: Shard;
  cleanup: boolean;
}

/** A worker's answer to its assignment: prepared, or why not (its name in the message). */
export type AssignReply = { ok: true } | { ok: false; code: string; message: string };

/** The run's second 0 (epoch ms), the same for every worker. */
export interface StartMessage {
  startAt: number;
}

/** Snapshots of one worker. */
export interface SnapshotMessage {
  name: string;
  snapshots: IntervalSnapshot[];
}

/** A worker finished (or failed) its share. */
export interface DoneMessage {
  name: string;
  cleanup?: CleanupSummary;
  error?: { code: string; message: string };
}

/** Names are subject tokens: letters, digits, `-` and `_`. */
export function validWorkerName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(name);
}
