import type { LoadPlan, Thresholds } from '../config/plan';
import { EXIT } from '../exit-codes';
import type { TimelinePoint } from './aggregate';
import type { AbortRecord, MetricsResult, Saturation, ThresholdCheck, Verdict } from './result';

/** Share of seconds whose event-loop delay may exceed the limit before the generator counts as saturated. */
const LAG_SECONDS_SHARE = 0.05;

/** Evaluates the thresholds that are set against one scope's metrics. */
export function checkThresholds(scope: string, t: Thresholds, m: MetricsResult): ThresholdCheck[] {
  const checks: ThresholdCheck[] = [];
  const below = (metric: ThresholdCheck['metric'], limit: number | undefined, actual: number) => {
    if (limit !== undefined) checks.push({ scope, metric, limit, actual, passed: actual < limit });
  };
  below('p95_ms', t.p95Ms, m.latencyMs.p95);
  below('p99_ms', t.p99Ms, m.latencyMs.p99);
  below('error_rate', t.errorRate, m.errorRate);
  if (t.minRps !== undefined)
    checks.push({ scope, metric: 'min_rps', limit: t.minRps, actual: m.rps, passed: m.rps >= t.minRps });
  return checks;
}

/**
 * Decides whether the generator produced the configured load: its event-loop delay p99 stayed under
 * `generator.max_event_loop_lag_ms` in at least 95 % of the seconds (and all but one), and in the open
 * model at least `generator.min_achieved_rate` of the planned arrivals were sent (an arrival is lost when
 * no user is idle: raise `users.peak`, or the generator fell behind).
 */
export function checkSaturation(plan: LoadPlan, timeline: TimelinePoint[], cpuPercent: number): Saturation {
  const reasons: string[] = [];
  const limit = plan.generator.maxEventLoopLagMs;
  const lagged = timeline.filter((p) => p.lagMs > limit).length;
  const lagP99MaxMs = Math.round(Math.max(0, ...timeline.map((p) => p.lagMs)) * 10) / 10;
  if (lagged > 1 && lagged > timeline.length * LAG_SECONDS_SHARE) {
    reasons.push(
      `event-loop delay p99 above ${limit} ms in ${lagged} of ${timeline.length} s (use generator.workers or --workers)`,
    );
  }
  let achievedRate: number | undefined;
  if (plan.model.kind === 'open') {
    const scheduled = timeline.reduce((n, p) => n + p.scheduled, 0);
    const dropped = timeline.reduce((n, p) => n + p.dropped, 0);
    achievedRate = scheduled > 0 ? Math.round(((scheduled - dropped) / scheduled) * 10_000) / 10_000 : 0;
    if (achievedRate < plan.generator.minAchievedRate) {
      reasons.push(
        `only ${(achievedRate * 100).toFixed(1)} % of ${scheduled} planned arrivals were sent: ${dropped} found no idle ` +
          'user (all busy or still logging in; raise users.peak or ramp_up_seconds)',
      );
    }
  }
  return { saturated: reasons.length > 0, reasons, lagP99MaxMs, achievedRate, cpuPercent };
}

/** Combines reachability, an abort, saturation and threshold checks into the verdict and its exit code. */
export function decideVerdict(
  total: MetricsResult,
  checks: ThresholdCheck[],
  saturation: Saturation,
  aborted?: AbortRecord,
  incomplete = false,
): Verdict {
  const answered = total.ok + total.failed + total.throttled;
  if (total.count === 0 || answered === 0) {
    return { status: 'target_unreachable', exitCode: EXIT.targetUnreachable, checks, saturation };
  }
  if (incomplete) return { status: 'incomplete', exitCode: EXIT.incomplete, checks, saturation, aborted };
  if (aborted) return { status: 'aborted', exitCode: EXIT.thresholdAborted, checks, saturation, aborted };
  if (saturation.saturated)
    return { status: 'generator_saturated', exitCode: EXIT.generatorSaturated, checks, saturation };
  if (checks.some((c) => !c.passed))
    return { status: 'thresholds_breached', exitCode: EXIT.thresholdsBreached, checks, saturation };
  return { status: 'pass', exitCode: EXIT.pass, checks, saturation };
}
