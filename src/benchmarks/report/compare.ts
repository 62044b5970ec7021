import { readFile } from 'node:fs/promises';
import { harnessError } from '../errors';
import { type LoadResult, type MetricsResult, RESULT_SCHEMA, RESULT_VERSION } from './result';
import { table } from './summary-table';

/** One metric of one scope in both runs. */
export interface CompareRow {
  scope: string;
  metric: 'rps' | 'p50_ms' | 'p95_ms' | 'p99_ms' | 'error_rate';
  before: number;
  after: number;
  /** Relative change, (after - before) / before; null when before is 0. */
  change: number | null;
  regression: boolean;
}

/** Absolute error-rate increase ignored as noise (0.1 percentage point). */
const ERROR_RATE_NOISE = 0.001;

/** Reads and checks a result file (schema and version). */
export async function readResult(path: string): Promise<LoadResult> {
  let data: Partial<LoadResult>;
  try {
    data = JSON.parse(await readFile(path, 'utf8')) as Partial<LoadResult>;
  } catch (err) {
    throw harnessError('invalid_result', `${path}: not a readable JSON file`, err);
  }
  if (data.schema !== RESULT_SCHEMA || data.schemaVersion !== RESULT_VERSION) {
    throw harnessError('invalid_result', `${path}: not a ${RESULT_SCHEMA} v${RESULT_VERSION} file`);
  }
  return data as LoadResult;
}

function rows(scope: string, a: MetricsResult, b: MetricsResult, tolerance: number): CompareRow[] {
  const row = (
    metric: CompareRow['metric'],
    before: number,
    after: number,
    higherIsWorse: boolean,
  ): CompareRow => {
    const change = before !== 0 ? (after - before) / before : null;
    const worse = higherIsWorse ? after - before : before - after;
    const regression =
      metric === 'error_rate'
        ? worse > ERROR_RATE_NOISE && (change === null || change > tolerance)
        : worse > 0 && (change === null ? after > 0 : Math.abs(change) > tolerance);
    return { scope, metric, before, after, change, regression };
  };
  return [
    row('rps', a.rps, b.rps, false),
    row('p50_ms', a.latencyMs.p50, b.latencyMs.p50, true),
    row('p95_ms', a.latencyMs.p95, b.latencyMs.p95, true),
    row('p99_ms', a.latencyMs.p99, b.latencyMs.p99, true),
    row('error_rate', a.errorRate, b.errorRate, true),
  ];
}

/**
 * Compares run `b` against baseline `a`, total, per scenario (matched by label) and per flow step
 * (matched by name, as `<flow> > <step>`): a regression is a latency percentile up or RPS down by more
 * than `tolerance` (relative), or an error rate up by more than the tolerance and 0.1 percentage point.
 */
export function compareResults(a: LoadResult, b: LoadResult, tolerance = 0.1): CompareRow[] {
  const out = rows('total', a.total, b.total, tolerance);
  for (const s of b.scenarios) {
    const base = a.scenarios.find((x) => x.label === s.label);
    if (!base) continue;
    out.push(...rows(s.label, base, s, tolerance));
    for (const st of s.steps ?? []) {
      const baseStep = base.steps?.find((x) => x.name === st.name);
      if (baseStep) out.push(...rows(`${s.label} > ${st.name}`, baseStep, st, tolerance));
    }
  }
  return out;
}

/**
 * What differs between the two runs' load (model, users, target rate, duration, stages, target, threads,
 * encryption):
 * numbers of runs under different loads are not comparable, so the comparison says so first.
 */
export function configDifferences(a: LoadResult, b: LoadResult): string[] {
  const keys = [
    'targetUrl',
    'model',
    'users',
    'targetRps',
    'plannedDurationSeconds',
    'workers',
    'encryptionMode',
  ] as const;
  const out = keys
    .filter((k) => a.config?.[k] !== b.config?.[k])
    .map((k) => `${k}: ${String(a.config?.[k])} -> ${String(b.config?.[k])}`);
  // Stages are compared when both files have them (older results do not).
  const stages = (r: LoadResult) =>
    r.config?.stages?.map((st) => `${st.target} over ${st.durationSeconds} s`).join(', ');
  if (a.config?.stages && b.config?.stages && stages(a) !== stages(b))
    out.push(`stages: ${stages(a)} -> ${stages(b)}`);
  return out;
}

/** Renders the comparison as a table, regressions marked. */
export function formatCompare(list: CompareRow[]): string {
  const fmt = (m: CompareRow['metric'], v: number) =>
    m === 'error_rate' ? `${(v * 100).toFixed(2)}%` : v.toFixed(1);
  const body = list.map((r) => [
    r.scope,
    r.metric,
    fmt(r.metric, r.before),
    fmt(r.metric, r.after),
    r.change === null ? 'n/a' : `${r.change >= 0 ? '+' : ''}${(r.change * 100).toFixed(1)}%`,
    r.regression ? 'REGRESSION' : '',
  ]);
  const n = list.filter((r) => r.regression).length;
  return `${table(['scope', 'metric', 'before', 'after', 'change', ''], body)}\n\n${n === 0 ? 'no regression' : `${n} regression(s)`}`;
}

/**
 * The server's stages of each scenario both runs timed (`server_timing`), before and after, as a table
 * (empty when no scenario has them in both). For reading where a change comes from: not judged, since
 * the stages are the server's own account, and the latencies above already are.
 */
export function formatStageChanges(a: LoadResult, b: LoadResult): string {
  const body: string[][] = [];
  for (const s of b.scenarios) {
    const before = a.scenarios.find((x) => x.label === s.label)?.serverTiming;
    if (!before || !s.serverTiming) continue;
    for (const [stage, m] of Object.entries(s.serverTiming)) {
      const base = before[stage];
      if (!base) continue;
      const change = base.meanMs !== 0 ? (m.meanMs - base.meanMs) / base.meanMs : null;
      body.push([
        s.label,
        stage,
        base.meanMs.toFixed(3),
        m.meanMs.toFixed(3),
        change === null ? 'n/a' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%`,
      ]);
    }
  }
  if (body.length === 0) return '';
  return `server stages (mean ms per response):\n${table(['scope', 'stage', 'before', 'after', 'change'], body)}`;
}
