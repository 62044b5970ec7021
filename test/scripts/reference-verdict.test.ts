/**
 * The reference run's verdict (bench/reference/verdict.ts): each criterion judged from the harness's
 * result, the server's CPU from its `--watch-pid` samples, and a saturated generator failing the run.
 */
import { describe, expect, it } from 'vitest';
import { judge, verdictLines } from '../../bench/reference/verdict';
import type { LoadResult } from '../../src/benchmarks/report/result';

function result(o: { p95: number; errorRate: number; cpu?: number; saturated?: boolean }): LoadResult {
  return {
    total: {
      count: 1000,
      failed: Math.round(o.errorRate * 1000),
      errors: 0,
      throttled: 12,
      errorRate: o.errorRate,
      latencyMs: { p95: o.p95 },
    },
    targetProcess:
      o.cpu === undefined
        ? undefined
        : {
            cpuAvgPercent: o.cpu,
            cpuMaxPercent: o.cpu + 10,
            samples: [
              { t: 0, cpuPercent: 0 },
              { t: 1, cpuPercent: o.cpu },
              { t: 2, cpuPercent: o.cpu },
            ],
          },
    verdict: {
      saturation: { saturated: o.saturated ?? false, reasons: o.saturated ? ['too few sent'] : [] },
    },
  } as unknown as LoadResult;
}

describe('reference verdict', () => {
  it('judges the sustained CPU of the last seconds when asked, and reports what came before beside it', () => {
    const run = result({ p95: 50, errorRate: 0, cpu: 10 });
    // Sign-ins cost 150 % for the first 2 s; once every user is in, 40 %.
    run.targetProcess!.samples = [
      { t: 0, cpuPercent: 0, rssMb: 1 },
      { t: 1, cpuPercent: 150, rssMb: 1 },
      { t: 2, cpuPercent: 150, rssMb: 1 },
      { t: 3, cpuPercent: 40, rssMb: 1 },
      { t: 4, cpuPercent: 40, rssMb: 1 },
    ];
    const cpu = judge(run, 2).criteria.find((c) => c.name === 'server CPU')!;
    expect(cpu.passed).toBe(true);
    expect(cpu.actual).toBe(
      '40.0 % of a core sustained over the last 2 s (before it, sign-ins included: 150.0 %)',
    );
    run.targetProcess!.samples.push({ t: 5, cpuPercent: 130, rssMb: 1 });
    expect(judge(run, 2).criteria.find((c) => c.name === 'server CPU')!.passed).toBe(false);
  });

  it('weighs each sample by the time it covers, so the short last one does not sway the mean', () => {
    const run = result({ p95: 50, errorRate: 0, cpu: 10 });
    // Four whole seconds at 60 %, then the sample taken as the load stopped, 0.2 s later, at 100 %.
    const samples = [0, 1, 2, 3, 4].map((t) => ({ t, cpuPercent: t === 0 ? 0 : 60, rssMb: 1 }));
    run.targetProcess!.samples = [...samples, { t: 4.2, cpuPercent: 100, rssMb: 1 }];
    const cpu = judge(run, 4).criteria.find((c) => c.name === 'server CPU')!;
    // The window (0.2, 4.2] s: (4 s * 60 % + 0.2 s * 100 %) / 4.2 s, where an unweighted mean gives 68 %.
    expect(cpu.actual).toMatch(/^61\.9 % of a core sustained/);
    // 2.4 s + 0.2 s of CPU over the 1000 requests.
    expect(judge(run).cpuMsPerRequest).toBeCloseTo(2.6, 6);
  });

  it('passes a run under every limit', () => {
    const verdict = judge(result({ p95: 150, errorRate: 0.002, cpu: 55 }));
    expect(verdict.passed).toBe(true);
    expect(verdict.criteria.map((c) => [c.name, c.passed])).toEqual([
      ['p95', true],
      ['errors', true],
      ['server CPU', true],
      ['generator', true],
    ]);
    expect(verdictLines('run:', verdict).at(-1)).toBe('  verdict: PASS');
  });

  it('fails on each limit reached, and on a CPU it could not measure', () => {
    const failing = (r: LoadResult) =>
      judge(r)
        .criteria.filter((c) => !c.passed)
        .map((c) => c.name);
    expect(failing(result({ p95: 200, errorRate: 0, cpu: 10 }))).toEqual(['p95']);
    expect(failing(result({ p95: 10, errorRate: 0.01, cpu: 10 }))).toEqual(['errors']);
    expect(failing(result({ p95: 10, errorRate: 0, cpu: 70 }))).toEqual(['server CPU']);
    expect(failing(result({ p95: 10, errorRate: 0 }))).toEqual(['server CPU']);
    expect(failing(result({ p95: 10, errorRate: 0, cpu: 10, saturated: true }))).toEqual(['generator']);
    expect(verdictLines('run:', judge(result({ p95: 900, errorRate: 0, cpu: 10 }))).at(-1)).toBe(
      '  verdict: FAIL',
    );
  });

  it("gives the server's CPU time per request from its per-second samples", () => {
    // Two one-second samples at 55 % of a core: 1.1 s of CPU over 1000 requests.
    const verdict = judge(result({ p95: 10, errorRate: 0, cpu: 55 }));
    expect(verdict.cpuMsPerRequest).toBeCloseTo(1.1, 6);
    expect(verdictLines('run:', verdict)).toContain('  server CPU per request: 1.10 ms (sign-ins included)');
    expect(judge(result({ p95: 10, errorRate: 0 })).cpuMsPerRequest).toBeUndefined();
  });

  it('says how many 429/503 answers were left out of the error rate', () => {
    const errors = judge(result({ p95: 10, errorRate: 0.005, cpu: 10 })).criteria[1]!;
    expect(errors.actual).toBe('0.50 % (5 of 1000; 12 429/503 left out)');
  });
});
