// The engine's shared vocabulary: what a generator thread runs with, its share of the run, the requests
// scenarios hand to users and a user's pause. Executors, scenarios, data feeders and the thread protocols
// import these from here; this file imports none of them, so the arrows only point into it.

import type { DocTypeSchema } from '../../protocol';
import type { LoadPlan } from '../config/plan';
import type { PayloadEncoder } from '../target/encryptor';
import type { TargetInfo } from '../target/target-info';
import type { CreatedRecords } from './created-records';
import type { HttpClient } from './http-client';

/** This thread's share of the users, of the arrival rate and of the data rows. */
export interface Shard {
  index: number;
  count: number;
}

/** Shared by every user of one thread: the plan, the target, one HTTP client, one body encoder. */
export interface Runtime {
  readonly plan: LoadPlan;
  readonly target: TargetInfo;
  readonly http: HttpClient;
  readonly encoder: PayloadEncoder;
  /** Records created by this thread's users and not deleted (for `--cleanup` and the write warning). */
  readonly created?: CreatedRecords;
  /** This thread's share of the run (data files are split by it). */
  readonly shard?: Shard;
}

/**
 * A user's pause of `ms` within an iteration (a flow step's `think_seconds`); resolves to false when it
 * was cut short (the run ended or was aborted), and the iteration should end there.
 */
export type Pause = (ms: number) => Promise<boolean>;

/** One request a scenario wants sent. */
export interface RequestSpec {
  method: string;
  /** Absolute URL. */
  url: string;
  headers?: Record<string, string>;
  /** A JSON body, encoded (maybe encrypted) on send. */
  json?: unknown;
  /** The DocType schema: `metadata` mode encrypts bodies of DocTypes with flagged fields. */
  schema?: DocTypeSchema;
  /** Owner service, sent as `X-Platform-Service` (docs/architecture.md#deterministic-routing). */
  service?: string;
}
