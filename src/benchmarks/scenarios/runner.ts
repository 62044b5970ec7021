import type { ScenarioPlan } from '../config/plan';
import type { HttpResponse } from '../engine/http-client';
import type { Runtime, VirtualUser } from '../engine/virtual-user';

/** One scenario compiled for a thread: each `iterate` sends one request as the given user. */
export interface ScenarioRunner {
  readonly plan: ScenarioPlan;
  iterate(user: VirtualUser): Promise<HttpResponse>;
}

/** Builds a scenario's runner; one file per scenario type registers one of these. */
export type ScenarioFactory<P extends ScenarioPlan = ScenarioPlan> = (
  plan: P,
  rt: Runtime,
) => Promise<ScenarioRunner> | ScenarioRunner;

/** Absolute URL of `path` (may carry a query) under `base`. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}
