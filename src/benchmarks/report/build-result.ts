import type { FlowStepPlan, LoadPlan, ScenarioPlan } from '../config/plan';
import type { CleanupSummary } from '../engine/cleanup';
import { encodeHistogram, type LatencyHistogram, summarize } from '../engine/histogram';
import { errorRate } from '../engine/outcome';
import type { StageTimes } from '../engine/server-timing';
import type { TargetInfo } from '../target/target-info';
import type { TargetWatch } from '../watch/proc-sampler';
import type { TargetMetricsWatch } from '../watch/target-metrics';
import type { Aggregator, Counters } from './aggregate';
import {
  type AbortRecord,
  type DistributedRun,
  type LoadResult,
  type MetricsResult,
  RESULT_SCHEMA,
  RESULT_VERSION,
  type ScenarioResult,
  type StageMean,
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
  /** `--watch-target` readings of the target's `/metrics`. */
  targetMetrics?: TargetMetricsWatch;
  /** Set when an `abort_on_fail` threshold stopped the run. */
  aborted?: AbortRecord;
  cleanup?: CleanupSummary & { requested: boolean };
  distributed?: DistributedRun;
}

function metrics(c: Counters, h: LatencyHistogram, seconds: number): MetricsResult {
  const { stageTimes, ...counters } = c;
  return {
    ...counters,
    rps: seconds > 0 ? Math.round((c.count / seconds) * 100) / 100 : 0,
    errorRate: Math.round(errorRate(c) * 1e6) / 1e6,
    latencyMs: summarize(h),
    histogram: encodeHistogram(h),
    ...(stageTimes ? { serverTiming: stageMeans(stageTimes) } : {}),
  };
}

/** Each stage's mean duration (ms, three decimals as the server sends them) and count. */
function stageMeans(times: StageTimes): Record<string, StageMean> {
  const out: Record<string, StageMean> = {};
  for (const [name, t] of Object.entries(times)) {
    out[name] = { meanMs: Math.round((t.sumMs / t.count) * 1000) / 1000, count: t.count };
  }
  return out;
}

function describe(s: ScenarioPlan): string {
  if (s.type === 'doctype') return s.doctype;
  if (s.type === 'rpc') return s.method;
  if (s.type === 'flow') return s.steps.map((st) => st.name).join(' -> ');
  return `${s.method} ${String(s.path())}`;
}

function describeStep(st: FlowStepPlan): string {
  const r = st.request;
  if (r.type === 'doctype') return `${r.op} ${r.doctype}`;
  if (r.type === 'rpc') return r.method;
  return `${r.method} ${String(r.path({ vars: {} }))}`;
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
    steps:
      s.type === 'flow'
        ? s.steps.map((st) => ({
            name: st.name,
            target: describeStep(st),
            ...metrics(agg.scenarioCounters[st.slot]!, agg.scenarioHistograms[st.slot]!, seconds),
          }))
        : undefined,
  }));
  const checks = [
    ...checkThresholds('total', plan.thresholds, total),
    ...plan.scenarios.flatMap((s, i) => checkThresholds(s.label, s.thresholds, scenarios[i]!)),
    ...plan.scenarios.flatMap((s, i) =>
      s.type === 'flow'
        ? s.steps.flatMap((st, j) =>
            st.thresholds
              ? checkThresholds(plan.slots[st.slot]!.label, st.thresholds, scenarios[i]!.steps![j]!)
              : [],
          )
        : [],
    ),
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
      stages: plan.model.stages.map((s) => ({
        durationSeconds: Math.round(s.durationSeconds * 100) / 100,
        target: Math.round(s.target * 100) / 100,
      })),
      workers: plan.generator.workers,
      encryptionMode: r.target.security?.mode ?? 'none',
      ...(plan.serverTiming ? { serverTiming: true } : {}),
    },
    total,
    scenarios,
    timeline: agg.timeline,
    targetProcess: r.watch,
    ...(r.targetMetrics ? { targetMetrics: r.targetMetrics } : {}),
    cleanup: r.cleanup,
    distributed: r.distributed,
    verdict: decideVerdict(total, checks, saturation, r.aborted, r.distributed?.incomplete),
  };
}
