import type { ScenarioPlan } from '../config/plan';
import type { DataFeeder } from '../data/feeder';
import type { HttpResponse } from '../engine/http-message';
import type { Recorder } from '../engine/recorder';
import type { Runtime } from '../engine/types';
import type { VirtualUser } from '../engine/virtual-user';
import type { RenderContext } from '../template/template';

/**
 * One scenario compiled for a thread: each `iterate` runs one iteration as the given user (one request,
 * or every step of a flow) and resolves to its (last) response.
 */
export interface ScenarioRunner {
  readonly plan: ScenarioPlan;
  /** Rows of the scenario's data file for this thread, if it has one. */
  readonly feeder?: DataFeeder;
  /** `ctx.data` is the iteration's data row. */
  iterate(user: VirtualUser, ctx?: RenderContext): Promise<HttpResponse>;
  /**
   * Runs and records one iteration itself, latency from `startedMs` (performance.now()); resolves to
   * false when a request got no response. Absent: the executor times `iterate` and judges its response.
   */
  timed?(user: VirtualUser, recorder: Recorder, startedMs: number, ctx?: RenderContext): Promise<boolean>;
}

/**
 * Builds a scenario's runner, a plain object (its methods own properties: `createRunners` copies it to
 * add the data feeder); one file per scenario type registers one of these.
 */
export type ScenarioFactory<P extends ScenarioPlan = ScenarioPlan> = (
  plan: P,
  rt: Runtime,
) => Promise<ScenarioRunner> | ScenarioRunner;

/** Absolute URL of `path` (may carry a query) under `base`. */
export function joinUrl(base: string, path: string): string {
  const root = base.endsWith('/') ? base.replace(/\/+$/, '') : base;
  return root + (path.startsWith('/') ? path : `/${path}`);
}
