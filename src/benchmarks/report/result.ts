import type { CleanupSummary } from '../engine/cleanup';
import type { LatencySummary } from '../engine/histogram';
import type { TargetWatch } from '../watch/proc-sampler';
import type { TargetMetricsWatch } from '../watch/target-metrics';
import type { Counters, TimelinePoint } from './aggregate';

/** Identifies result files; bump `RESULT_VERSION` on any incompatible change. */
export const RESULT_SCHEMA = 'desk-load-result';
export const RESULT_VERSION = 1;

/** One server stage of a series (`server_timing`): its mean duration per response, and how many. */
export interface StageMean {
  meanMs: number;
  /** Responses whose `Server-Timing` named the stage. */
  count: number;
}

/** Metrics of one scenario, or of the whole run. */
export interface MetricsResult extends Omit<Counters, 'stageTimes'> {
  /** Responses per second over the measured duration. */
  rps: number;
  /** (failed + errors) / (count - throttled). */
  errorRate: number;
  latencyMs: LatencySummary;
  /** HdrHistogram V2 compressed base64 of the latencies in microseconds (mergeable). */
  histogram: string;
  /**
   * `server_timing`: the server's stages (`Server-Timing`), in the order it lists them; absent when it
   * sent none (it answers it to System Managers only).
   */
  serverTiming?: Record<string, StageMean>;
}

/** A scenario's result: what it was, and its metrics (a flow's: one per iteration, steps apart). */
export interface ScenarioResult extends MetricsResult {
  label: string;
  type: 'doctype' | 'endpoint' | 'rpc' | 'flow';
  /** DocType, `METHOD /path`, RPC method, or the flow's step names. */
  target: string;
  weight: number;
  /** A flow's steps, in order, each with its own metrics. */
  steps?: StepResult[];
}

/** One step of a flow. */
export interface StepResult extends MetricsResult {
  name: string;
  /** `doctype create crm.Customer`, `GET /path` or the RPC method. */
  target: string;
}

/** One threshold evaluation. */
export interface ThresholdCheck {
  /** `total` or a scenario label. */
  scope: string;
  metric: 'p95_ms' | 'p99_ms' | 'error_rate' | 'min_rps';
  limit: number;
  actual: number;
  passed: boolean;
}

/** Why a run's numbers cannot be trusted, if they cannot. */
export interface Saturation {
  saturated: boolean;
  reasons: string[];
  /** Worst per-second event-loop delay p99 of any generator thread, ms. */
  lagP99MaxMs: number;
  /** Open model: arrivals served / arrivals planned. */
  achievedRate?: number;
  /** Generator process CPU over the run, % of one core. */
  cpuPercent: number;
}

/** The verdict and its exit code. */
export interface Verdict {
  status:
    | 'pass'
    | 'thresholds_breached'
    | 'generator_saturated'
    | 'target_unreachable'
    | 'aborted'
    | 'incomplete';
  exitCode: number;
  checks: ThresholdCheck[];
  saturation: Saturation;
  /** Why the run was stopped early by an `abort_on_fail` threshold. */
  aborted?: AbortRecord;
}

/** A run spread over worker processes (`--nats`): each worker's share, and whether one was lost. */
export interface DistributedRun {
  nats: string;
  /** True when a worker was lost: its share of the load is missing from the numbers. */
  incomplete: boolean;
  workers: Array<{
    name: string;
    lost: boolean;
    /** Requests of the scenarios (the run's total) this worker recorded. */
    requests: number;
    /** Its latencies (HdrHistogram V2, microseconds): they merge exactly into the run's total. */
    histogram: string;
  }>;
}

/** An `abort_on_fail` threshold breached during the run. */
export interface AbortRecord {
  /** Seconds since the start when it was seen. */
  atSecond: number;
  check: ThresholdCheck;
}

/** The JSON written to `<out>/result.json` (schema-versioned). */
export interface LoadResult {
  schema: typeof RESULT_SCHEMA;
  schemaVersion: typeof RESULT_VERSION;
  startedAt: string;
  finishedAt: string;
  /** Seconds actually measured. */
  durationSeconds: number;
  config: {
    path: string;
    targetUrl: string;
    model: 'closed' | 'open';
    users: number;
    rampUpSeconds: number;
    /** Open model target rate, requests per second. */
    targetRps?: number;
    plannedDurationSeconds: number;
    /**
     * The planned users (closed model) or arrivals per second (open model) over time, each stage ramping
     * linearly from the previous target (absent in results of older versions).
     */
    stages?: Array<{ durationSeconds: number; target: number }>;
    workers: number;
    encryptionMode: string;
    /** `server_timing: true`: the requests asked for `Server-Timing` (absent in older results). */
    serverTiming?: boolean;
  };
  total: MetricsResult;
  scenarios: ScenarioResult[];
  timeline: TimelinePoint[];
  targetProcess?: TargetWatch;
  /** `--watch-target`: the server's side of the run, from its own `/metrics` once a second. */
  targetMetrics?: TargetMetricsWatch;
  /** Records DocType scenarios created and did not delete; with `--cleanup`, how many were deleted. */
  cleanup?: CleanupSummary & { requested: boolean };
  distributed?: DistributedRun;
  verdict: Verdict;
}
