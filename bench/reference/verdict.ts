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

/** Mean CPU (% of one core) of the samples taken in `(from, to]` seconds; undefined with none. */
function meanCpu(result: LoadResult, from: number, to = Number.POSITIVE_INFINITY): number | undefined {
  const samples = (result.targetProcess?.samples ?? []).slice(1).filter((s) => s.t > from && s.t <= to);
  if (samples.length === 0) return undefined;
  return samples.reduce((sum, s) => sum + s.cpuPercent, 0) / samples.length;
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
  // Samples are one second apart; the first only starts the count.
  const cpuSeconds =
    (result.targetProcess?.samples ?? []).slice(1).reduce((sum, s) => sum + s.cpuPercent, 0) / 100;
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
