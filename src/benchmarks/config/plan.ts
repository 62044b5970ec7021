import type { Renderer } from '../template/template';
import type { ModuleRef } from './module-ref';

/**
 * The validated, resolved plan a load test executes: defaults applied, environment variables substituted,
 * templates compiled, module references resolved. Produced once from the YAML by `loadPlan`; executors
 * and workers only ever see this shape (docs/architecture.md#configuration-becomes-a-validated-plan).
 */
export interface LoadPlan {
  configPath: string;
  /** Base URL without a trailing slash. */
  targetUrl: string;
  /** `Host` header override (`users.host`). */
  hostHeader?: string;
  durationSeconds: number;
  users: UsersPlan;
  model: { kind: 'closed' } | { kind: 'open'; ratePerSecond: number };
  seed: Record<string, unknown>;
  auth: AuthPlan;
  scenarios: ScenarioPlan[];
  thresholds: Thresholds;
  generator: { workers: number; maxEventLoopLagMs: number; minAchievedRate: number };
  http: { timeoutMs: number; connections: number };
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
  expectStatus: number[];
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

/** One scenario of the plan. */
export type ScenarioPlan = DoctypeScenarioPlan | EndpointScenarioPlan | RpcScenarioPlan;
