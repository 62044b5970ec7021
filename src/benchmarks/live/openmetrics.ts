import type { JsHistogram } from 'hdr-histogram-js';
import type { LatencyHistogram } from '../engine/histogram';
import type { StageTime } from '../engine/server-timing';
import type { Aggregator } from '../report/aggregate';

/** Latency bucket bounds of the exported histograms, seconds (Prometheus' defaults, finer at the low end). */
const BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What the exposition is built from: the run's aggregator and the generator's own state. */
export interface MetricsSource {
  agg: Aggregator;
  /** Seconds since second 0. */
  elapsedSeconds(): number;
  /** CPU seconds of the generator process since the start (its own accounting). */
  cpuSeconds(): number;
}

/** Escapes a label value (backslash, double quote, newline). */
function label(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** Cumulative counts at each bucket bound, from an HDR histogram in microseconds (exact at its precision). */
function bucketCounts(h: LatencyHistogram): number[] {
  const counts = BUCKETS_S.map(() => 0);
  if (h.totalCount === 0) return counts;
  const it = (h as unknown as JsHistogram).recordedValuesIterator;
  it.reset();
  while (it.hasNext()) {
    const v = it.next();
    const s = v.valueIteratedTo / 1e6;
    for (let i = 0; i < BUCKETS_S.length; i++) if (s <= BUCKETS_S[i]!) counts[i]! += v.countAtValueIteratedTo;
  }
  return counts;
}

/**
 * The run so far as OpenMetrics text (also read by Prometheus' text parser): per series (scenario or
 * flow step) the requests by outcome, the failed checks by name, a latency histogram and the server's
 * stages (`server_timing`: seconds and responses per stage); for the
 * generator, its users, event-loop delay, dropped arrivals and CPU seconds.
 */
export function renderOpenMetrics(src: MetricsSource): string {
  const { agg } = src;
  const out: string[] = [];
  const family = (name: string, type: string, help: string) =>
    out.push(`# TYPE ${name} ${type}`, `# HELP ${name} ${help}`);
  family('desk_load_requests', 'counter', 'Requests completed, by scenario (or flow step) and outcome.');
  agg.labels.forEach((l, i) => {
    const c = agg.scenarioCounters[i]!;
    for (const outcome of ['ok', 'failed', 'throttled', 'errors'] as const) {
      out.push(
        `desk_load_requests_total{scenario="${label(l)}",outcome="${outcome === 'errors' ? 'error' : outcome}"} ${c[outcome]}`,
      );
    }
  });
  family('desk_load_check_failures', 'counter', 'Failed checks, by scenario (or flow step) and check.');
  agg.labels.forEach((l, i) => {
    for (const [check, c] of Object.entries(agg.scenarioCounters[i]!.checks ?? {})) {
      out.push(`desk_load_check_failures_total{scenario="${label(l)}",check="${label(check)}"} ${c.failed}`);
    }
  });
  family(
    'desk_load_latency_seconds',
    'histogram',
    'Latency of answered requests, by scenario (or flow step).',
  );
  agg.labels.forEach((l, i) => {
    const h = agg.scenarioHistograms[i]!;
    const counts = bucketCounts(h);
    const sl = `scenario="${label(l)}"`;
    for (const [j, b] of BUCKETS_S.entries()) {
      out.push(`desk_load_latency_seconds_bucket{${sl},le="${b}"} ${counts[j]}`);
    }
    out.push(`desk_load_latency_seconds_bucket{${sl},le="+Inf"} ${h.totalCount}`);
    out.push(
      `desk_load_latency_seconds_sum{${sl}} ${h.totalCount === 0 ? 0 : (h.mean * h.totalCount) / 1e6}`,
    );
    out.push(`desk_load_latency_seconds_count{${sl}} ${h.totalCount}`);
  });
  // Each family's samples together (OpenMetrics does not interleave families).
  const stages = (sample: (labels: string, t: StageTime) => string) =>
    agg.labels.forEach((l, i) => {
      for (const [stage, t] of Object.entries(agg.scenarioCounters[i]!.stageTimes ?? {})) {
        out.push(sample(`{scenario="${label(l)}",stage="${label(stage)}"}`, t));
      }
    });
  family(
    'desk_load_server_stage_seconds',
    'counter',
    'server_timing: time the server reported per stage (Server-Timing), by scenario (or flow step) and stage.',
  );
  stages((labels, t) => `desk_load_server_stage_seconds_total${labels} ${t.sumMs / 1000}`);
  family(
    'desk_load_server_stage_responses',
    'counter',
    'server_timing: responses whose Server-Timing named the stage, by scenario (or flow step) and stage.',
  );
  stages((labels, t) => `desk_load_server_stage_responses_total${labels} ${t.count}`);
  const last = agg.timeline.at(-1);
  family('desk_load_users', 'gauge', 'The most users running at once in the last finished second.');
  out.push(`desk_load_users ${last?.users ?? 0}`);
  family(
    'desk_load_event_loop_delay_seconds',
    'gauge',
    'Worst generator thread event-loop delay p99, last second.',
  );
  out.push(`desk_load_event_loop_delay_seconds ${(last?.lagMs ?? 0) / 1000}`);
  family('desk_load_dropped_arrivals', 'counter', 'Open model: arrivals that found no idle user.');
  out.push(`desk_load_dropped_arrivals_total ${agg.timeline.reduce((n, p) => n + p.dropped, 0)}`);
  family('desk_load_generator_cpu_seconds', 'counter', 'CPU seconds used by the generator process.');
  out.push(`desk_load_generator_cpu_seconds_total ${src.cpuSeconds().toFixed(3)}`);
  family('desk_load_elapsed_seconds', 'gauge', 'Seconds since the load started.');
  out.push(`desk_load_elapsed_seconds ${src.elapsedSeconds().toFixed(3)}`);
  out.push('# EOF', '');
  return out.join('\n');
}
