import type { Thresholds } from './plan';
import type { ThresholdsConfig } from './schema';

/** Seconds of a run during which `abort_on_fail` is not judged, unless the thresholds say otherwise. */
export const DEFAULT_ABORT_GRACE_S = 10;

/**
 * A `thresholds:` block resolved over `base`: the limits it sets, the others from `base` (a scenario's
 * from the run's; a flow step's from nothing, so a step is judged only on what it sets itself).
 */
export function thresholdsOf(t: ThresholdsConfig | undefined, base: Thresholds): Thresholds {
  const out: Thresholds = {
    p95Ms: t?.p95_ms ?? base.p95Ms,
    p99Ms: t?.p99_ms ?? base.p99Ms,
    errorRate: t?.error_rate ?? base.errorRate,
    minRps: t?.min_rps ?? base.minRps,
  };
  // Aborting is a property of the block that asks for it: a scenario does not inherit it.
  if (t?.abort_on_fail) {
    out.abortOnFail = true;
    out.abortGraceSeconds = t.abort_grace_seconds ?? DEFAULT_ABORT_GRACE_S;
  }
  return out;
}
