import type { LoadPlan, ScenarioPlan } from '../config/plan';
import { encodeHistogram, type LatencyHistogram, summarize } from '../engine/histogram';
import { errorRate } from '../engine/outcome';
import type { TargetInfo } from '../target/target-info';
import type { TargetWatch } from '../watch/proc-sampler';
import type { Aggregator, Counters } from './aggregate';
import {
  type LoadResult,
  type MetricsResult,
  RESULT_SCHEMA,
  RESULT_VERSION,
  type ScenarioResult,
} from './result';
import { checkSaturation, checkThresholds, decideVerdict } from './verdict';

/** What a finished run hands to the report. */
export interface RunRecord {
  plan: LoadPlan;
  target: TargetInfo;
  agg: Aggregator;
  startedAt: Date;
  finishedAt: Date;
  /** Seconds the load ran (the planned duration, or less when stopped early). */
  measuredSeconds: number;
  /** Generator process CPU, % of one core. */
  cpuPercent: number;
  watch?: TargetWatch;
}

function metrics(c: Counters, h: LatencyHistogram, seconds: number): MetricsResult {
  return {
    ...c,
    rps: seconds > 0 ? Math.round((c.count / seconds) * 100) / 100 : 0,
    errorRate: Math.round(errorRate(c) * 1e6) / 1e6,
    latencyMs: summarize(h),
    histogram: encodeHistogram(h),
  };
}

function describe(s: ScenarioPlan): string {
  if (s.type === 'doctype') return s.doctype;
  if (s.type === 'rpc') return s.method;
  return `${s.method} ${String(s.path())}`;
}

/** Builds the result file's content, verdict included. */
export function buildResult(r: RunRecord): LoadResult {
  const { plan, agg } = r;
  const seconds = r.measuredSeconds;
  const total = metrics(agg.totalCounters, agg.totalHistogram, seconds);
  const scenarios: ScenarioResult[] = plan.scenarios.map((s, i) => ({
    label: s.label,
    type: s.type,
    target: describe(s),
    weight: s.weight,
    ...metrics(agg.scenarioCounters[i]!, agg.scenarioHistograms[i]!, seconds),
  }));
  const checks = [
    ...checkThresholds('total', plan.thresholds, total),
    ...plan.scenarios.flatMap((s, i) => checkThresholds(s.label, s.thresholds, scenarios[i]!)),
  ];
  const saturation = checkSaturation(plan, agg.timeline, r.cpuPercent);
  return {
    schema: RESULT_SCHEMA,
    schemaVersion: RESULT_VERSION,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt.toISOString(),
    durationSeconds: Math.round(seconds * 10) / 10,
    config: {
      path: plan.configPath,
      targetUrl: plan.targetUrl,
      model: plan.model.kind,
      users: plan.users.peak,
      rampUpSeconds: Math.round(plan.users.rampUpSeconds * 10) / 10,
      targetRps: plan.model.kind === 'open' ? plan.model.ratePerSecond : undefined,
      plannedDurationSeconds: plan.durationSeconds,
      workers: plan.generator.workers,
      encryptionMode: r.target.security?.mode ?? 'none',
    },
    total,
    scenarios,
    timeline: agg.timeline,
    targetProcess: r.watch,
    verdict: decideVerdict(total, checks, saturation),
  };
}
