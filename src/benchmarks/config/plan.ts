import type { Capture, CheckPlan } from '../checks/checks';
import type { DataRow } from '../data/parse-data';
import type { Renderer } from '../template/template';
import type { ModuleRef } from './module-ref';

/**
 * The validated, resolved plan a load test executes: defaults applied, environment variables substituted,
 * templates compiled, module references resolved. Produced once from the YAML by `loadPlan`; executors
 * and workers only ever see this shape (docs/architecture.md#configuration-becomes-a-validated-plan).
 */
export interface LoadPlan {
  configPath: string;
  /**
   * What the plan was validated from: generator threads compile their own copy from it (compiled
   * templates are functions and cannot cross threads), never from the file on disk, which may have
   * changed since the main thread validated and reported it.
   */
  source: PlanSource;
  /** Base URL without a trailing slash. */
  targetUrl: string;
  /** `Host` header override (`users.host`). */
  hostHeader?: string;
  durationSeconds: number;
  users: UsersPlan;
  /**
   * Closed: users over time (`users.stages`, or the ramp-up shorthand). Open: arrivals per second over time
   * (`rate.stages`, or the constant rate ramped over `users.ramp_up_seconds`); `ratePerSecond` is the
   * highest stage target.
   */
  model: { kind: 'closed'; stages: Stage[] } | { kind: 'open'; ratePerSecond: number; stages: Stage[] };
  seed: Record<string, unknown>;
  auth: AuthPlan;
  scenarios: ScenarioPlan[];
  /**
   * Every measured series: the scenarios first (slot `i` is scenario `i`), then the steps of flows. The
   * run's total sums the scenarios only (a flow iteration counts once, its steps apart).
   */
  slots: SlotPlan[];
  thresholds: Thresholds;
  /** `batchMs`: open model, a wake-up sends the arrivals due within this many ms (see executors/open-model). */
  generator: { workers: number; maxEventLoopLagMs: number; minAchievedRate: number; batchMs: number };
  http: { timeoutMs: number; connections: number };
  /** `server_timing`: every request asks for `Server-Timing`, whose stages are summed per series. */
  serverTiming: boolean;
}

/** The exact inputs of a validated plan: compiling them again yields the same plan. */
export interface PlanSource {
  /** The YAML text as read once by the main thread. */
  text: string;
  /** Only the environment variables the text references, with the values substituted. */
  env: Record<string, string>;
  /** Command-line overrides applied before validation. */
  overrides: PlanOverridesShape;
  /** Dry run: unset secrets rendered as placeholders (never sent anywhere). */
  placeholders?: boolean;
  /** Data files the text names, as read once (absolute path -> text). */
  files?: Record<string, string>;
}

/** Command-line overrides applied before validation (so they are validated like the file). */
export interface PlanOverridesShape {
  /** The same file against another deployment (staging, a test server). */
  targetUrl?: string;
  durationSeconds?: number;
  /** `users.peak`; with `users.stages`, the stages scaled to peak at this many users. */
  users?: number;
  workers?: number;
}

/** One stage of a ramp: from the previous stage's target (0 before the first) to `target`, linearly. */
export interface Stage {
  durationSeconds: number;
  target: number;
}

/** One measured series: a scenario, or one step of a flow. */
export interface SlotPlan {
  /** `checkout` for a scenario, `checkout > 2-read` for a step. */
  label: string;
  scenario: number;
  step?: number;
}

/** How users start and pace themselves. */
export interface UsersPlan {
  peak: number;
  /** Seconds until all users run (peak / spawnRate; 0 = all at once). */
  rampUpSeconds: number;
  /** Users started per second (Infinity when all start at once). */
  spawnRate: number;
  /** Uniform pause range between a user's requests, seconds (closed model). */
  thinkTime: [number, number];
}

/** Pass/fail limits; an absent key is not checked. */
export interface Thresholds {
  p95Ms?: number;
  p99Ms?: number;
  errorRate?: number;
  minRps?: number;
  /** Stop the run when a latency or error-rate limit of this block is breached (after the grace). */
  abortOnFail?: boolean;
  abortGraceSeconds?: number;
}

/** One resolved auth provider (docs/load-testing.md#auth-providers). */
export type AuthPlan =
  | { mode: 'session'; loginUrl: string; username: string; password: string }
  | { mode: 'api_key'; headerName: string; key: string }
  | { mode: 'bearer'; token: string }
  | { mode: 'none' }
  | { mode: 'custom'; factory: ModuleRef };

interface ScenarioCommon {
  index: number;
  /** Report name (label or name), unique in the plan. */
  label: string;
  weight: number;
  auth: AuthPlan;
  thresholds: Thresholds;
  /** What a response must satisfy; `checks.status` replaces the older `expect_status`. */
  checks: CheckPlan;
  /** Rows fed to the iterations (`data:`), if any. */
  data?: DataPlan;
}

/** Fractions of read/create/update/delete; they sum to 1. */
export interface Mix {
  read: number;
  create: number;
  update: number;
  delete: number;
}

/** `type: doctype`. */
export interface DoctypeScenarioPlan extends ScenarioCommon {
  type: 'doctype';
  doctype: string;
  mix: Mix;
  filters?: Renderer;
  overrides?: Renderer;
}

/** `type: endpoint`. */
export interface EndpointScenarioPlan extends ScenarioCommon {
  type: 'endpoint';
  method: string;
  path: Renderer;
  headers: Renderer;
  body?: Renderer;
  bodyFactory?: ModuleRef;
}

/** `type: rpc`. */
export interface RpcScenarioPlan extends ScenarioCommon {
  type: 'rpc';
  method: string;
  args?: Renderer;
  kwargs?: Renderer;
}

/** The request of one flow step, before rendering. */
export type StepRequest =
  | {
      type: 'doctype';
      doctype: string;
      op: 'create' | 'read' | 'update' | 'delete' | 'list';
      id?: Renderer;
      overrides?: Renderer;
      filters?: Renderer;
    }
  | { type: 'endpoint'; method: string; path: Renderer; headers: Renderer; body?: Renderer }
  | { type: 'rpc'; method: string; args?: Renderer; kwargs?: Renderer };

/** One step of a flow. */
export interface FlowStepPlan {
  /** Step name, unique in its flow. */
  name: string;
  /** Its measured series in `LoadPlan.slots`. */
  slot: number;
  request: StepRequest;
  checks: CheckPlan;
  captures: Capture[];
  /** The user's pause after the step succeeded, `[min, max]` seconds drawn uniformly (`[0, 0]`: none). */
  think: [number, number];
  /** The step's own limits, when it sets any (judged with the scope `<flow> > <step>`). */
  thresholds?: Thresholds;
}

/** `type: flow`. */
export interface FlowScenarioPlan extends ScenarioCommon {
  type: 'flow';
  steps: FlowStepPlan[];
}

/** How a scenario takes rows: in order (wrapping), at random, or each row once for the whole run. */
export type DataMode = 'sequential' | 'random' | 'unique';

/** A scenario's data file, resolved. */
export interface DataPlan {
  /** The file as written in the YAML (for messages). */
  file: string;
  mode: DataMode;
  columns: string[];
  rows: DataRow[];
}

/** One scenario of the plan. */
export type ScenarioPlan = DoctypeScenarioPlan | EndpointScenarioPlan | RpcScenarioPlan | FlowScenarioPlan;
