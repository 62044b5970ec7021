import type { LoadResult } from '../../src/benchmarks/report/result';

/** The reference run's limits (docs/load-testing.md#reference-targets). */
export const LIMITS = { p95Ms: 200, errorRate: 0.01, serverCpuPercent: 70 } as const;

/** One criterion of the verdict. */
export interface Criterion {
  name: string;
  actual: string;
  limit: string;
  passed: boolean;
}

/** A run judged on every criterion. */
export interface ReferenceVerdict {
  passed: boolean;
  criteria: Criterion[];
  /**
   * The server's CPU time (all its threads, sign-in hashing included) per request the harness counted, in
   * ms: what a change in the server costs or saves, much less swayed than latency by other processes.
   */
  cpuMsPerRequest?: number;
}

/** The watched process's samples after the first, each with the seconds it covers (since the one before). */
function intervals(result: LoadResult): { t: number; cpuPercent: number; seconds: number }[] {
  const samples = result.targetProcess?.samples ?? [];
  return samples.slice(1).map((s, i) => ({ ...s, seconds: s.t - samples[i]!.t }));
}

/**
 * Mean CPU (% of one core) over the samples taken in `(from, to]` seconds, each weighted by the time it
 * covers: the CPU time used over that time, divided by it. The last sample is taken when the load stops, a
 * fraction of a second after the one before, and its few clock ticks would sway an unweighted mean by
 * several points. Undefined with no sample.
 */
function meanCpu(result: LoadResult, from: number, to = Number.POSITIVE_INFINITY): number | undefined {
  const window = intervals(result).filter((s) => s.t > from && s.t <= to);
  const seconds = window.reduce((sum, s) => sum + s.seconds, 0);
  if (window.length === 0 || seconds <= 0) return undefined;
  return window.reduce((sum, s) => sum + s.cpuPercent * s.seconds, 0) / seconds;
}

/**
 * Judges a harness result: total p95 and error rate (429 and 503 already left out of it by the harness),
 * the server process's CPU (% of one core, from /proc), and whether the generator kept up (a saturated
 * generator's numbers say nothing about the server). With `sustainedSeconds`, the CPU judged is the
 * sustained one, the mean of the run's last `sustainedSeconds` (the limit is on sustained use); the mean
 * of what came before (the ramp, when the users sign in, and its backlog) is reported beside it. Without,
 * it is the mean over the whole run.
 */
export function judge(result: LoadResult, sustainedSeconds?: number): ReferenceVerdict {
  const { total } = result;
  const lastT = result.targetProcess?.samples.at(-1)?.t ?? 0;
  const from = sustainedSeconds === undefined ? undefined : lastT - sustainedSeconds;
  const before = from === undefined ? undefined : meanCpu(result, 0, from);
  const cpu = from === undefined ? result.targetProcess?.cpuAvgPercent : meanCpu(result, from);
  const saturation = result.verdict.saturation;
  const criteria: Criterion[] = [
    {
      name: 'p95',
      actual: `${total.latencyMs.p95.toFixed(1)} ms`,
      limit: `< ${LIMITS.p95Ms} ms`,
      passed: total.latencyMs.p95 < LIMITS.p95Ms,
    },
    {
      name: 'errors',
      actual: `${(total.errorRate * 100).toFixed(2)} % (${total.failed + total.errors} of ${total.count}; ${total.throttled} 429/503 left out)`,
      limit: `< ${LIMITS.errorRate * 100} %`,
      passed: total.errorRate < LIMITS.errorRate,
    },
    {
      name: 'server CPU',
      actual:
        cpu === undefined
          ? 'not measured'
          : sustainedSeconds === undefined
            ? `${cpu.toFixed(1)} % of a core (max ${result.targetProcess!.cpuMaxPercent.toFixed(1)})`
            : `${cpu.toFixed(1)} % of a core sustained over the last ${sustainedSeconds} s` +
              (before === undefined ? '' : ` (before it, sign-ins included: ${before.toFixed(1)} %)`),
      limit: `< ${LIMITS.serverCpuPercent} %`,
      passed: cpu !== undefined && cpu < LIMITS.serverCpuPercent,
    },
    {
      name: 'generator',
      actual: saturation.saturated ? `saturated: ${saturation.reasons.join('; ')}` : 'kept up',
      limit: 'not saturated',
      passed: !saturation.saturated,
    },
  ];
  // The first sample only starts the count; each later one covers the time since the one before.
  const cpuSeconds = intervals(result).reduce((sum, s) => sum + (s.cpuPercent * s.seconds) / 100, 0);
  const cpuMsPerRequest =
    result.targetProcess && total.count > 0 ? (cpuSeconds * 1000) / total.count : undefined;
  return { passed: criteria.every((c) => c.passed), criteria, cpuMsPerRequest };
}

/** The verdict as printed lines: one per criterion, then the overall one. */
export function verdictLines(title: string, verdict: ReferenceVerdict): string[] {
  const width = Math.max(...verdict.criteria.map((c) => c.name.length));
  return [
    title,
    ...verdict.criteria.map(
      (c) => `  ${c.passed ? 'PASS' : 'FAIL'}  ${c.name.padEnd(width)}  ${c.actual}  (limit ${c.limit})`,
    ),
    ...(verdict.cpuMsPerRequest === undefined
      ? []
      : [`  server CPU per request: ${verdict.cpuMsPerRequest.toFixed(2)} ms (sign-ins included)`]),
    `  verdict: ${verdict.passed ? 'PASS' : 'FAIL'}`,
  ];
}
