import type { LoadPlan, Thresholds } from '../config/plan';
import { summarize } from '../engine/histogram';
import { errorRate } from '../engine/outcome';
import type { Aggregator } from './aggregate';
import type { AbortRecord, MetricsResult } from './result';
import { checkThresholds } from './verdict';

/**
 * The thresholds blocks that abort, with their scope (`total`, a scenario label, or `<flow> > <step>`)
 * and series.
 */
function abortingBlocks(plan: LoadPlan): Array<{ scope: string; slot?: number; t: Thresholds }> {
  const out: Array<{ scope: string; slot?: number; t: Thresholds }> = [];
  if (plan.thresholds.abortOnFail) out.push({ scope: 'total', t: plan.thresholds });
  for (const s of plan.scenarios) {
    if (s.thresholds.abortOnFail) out.push({ scope: s.label, slot: s.index, t: s.thresholds });
    if (s.type !== 'flow') continue;
    for (const st of s.steps)
      if (st.thresholds?.abortOnFail)
        out.push({ scope: plan.slots[st.slot]!.label, slot: st.slot, t: st.thresholds });
  }
  return out;
}

/**
 * Judges the `abort_on_fail` thresholds on the numbers so far, after each finished second: latency
 * percentiles and error rate over everything recorded up to that second (min_rps is only judged at the
 * end, since a run still ramping up would always breach it). Nothing is judged before the block's grace
 * period. Returns the first breach, or undefined.
 */
export function abortCheck(plan: LoadPlan, agg: Aggregator, second: number): AbortRecord | undefined {
  for (const b of abortingBlocks(plan)) {
    if (second < (b.t.abortGraceSeconds ?? 0)) continue;
    const counters = b.slot === undefined ? agg.totalCounters : agg.scenarioCounters[b.slot]!;
    const histogram = b.slot === undefined ? agg.totalHistogram : agg.scenarioHistograms[b.slot]!;
    if (counters.count === 0) continue;
    const m = {
      ...counters,
      rps: 0,
      errorRate: errorRate(counters),
      latencyMs: summarize(histogram),
      histogram: '',
    } satisfies MetricsResult;
    const failed = checkThresholds(b.scope, { ...b.t, minRps: undefined }, m).find((c) => !c.passed);
    if (failed) return { atSecond: second, check: failed };
  }
  return undefined;
}
