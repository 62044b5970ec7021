import type { LoadResult, MetricsResult } from './result';
import { serverTimingLines } from './server-stages';

function row(name: string, m: MetricsResult): string[] {
  return [
    name,
    String(m.count),
    m.rps.toFixed(1),
    m.latencyMs.p50.toFixed(1),
    m.latencyMs.p95.toFixed(1),
    m.latencyMs.p99.toFixed(1),
    m.latencyMs.max.toFixed(1),
    `${(m.errorRate * 100).toFixed(2)}%`,
    String(m.failed + m.errors),
    String(m.throttled),
  ];
}

/** Lays out rows as a text table with right-aligned numbers. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * The final summary: one row per scenario and the total (requests, RPS, p50/p95/p99/max in ms, error
 * rate with 429/503 excluded, failures, 429/503), the server's stages per scenario (`server_timing`), the
 * threshold checks, saturation and the verdict.
 */
export function formatSummary(r: LoadResult): string {
  const header = [
    'scenario',
    'requests',
    'rps',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'max ms',
    'err rate',
    'failures',
    '429/503',
  ];
  const rows = [
    ...r.scenarios.flatMap((s) => [
      row(s.label, s),
      ...(s.steps ?? []).map((st) => row(`  > ${st.name}`, st)),
    ]),
    row('TOTAL', r.total),
  ];
  const lines = [table(header, rows), ''];
  for (const s of r.scenarios) {
    for (const [scope, m] of [
      [s.label, s] as const,
      ...(s.steps ?? []).map((st) => [`${s.label} > ${st.name}`, st] as const),
    ]) {
      for (const [check, c] of Object.entries(m.checks ?? {})) {
        lines.push(`check failed: ${scope}: ${check}: ${c.failed} time(s), e.g. ${c.reason}`);
      }
    }
  }
  for (const s of r.scenarios) {
    const n = s.statuses['error:data_exhausted'];
    if (n)
      lines.push(
        `data exhausted: ${s.label}: its unique rows ran out; ${n} iteration(s) had no row and were not sent`,
      );
  }
  lines.push(...serverTimingLines(r));
  const a = r.verdict.aborted;
  if (a) {
    lines.push(
      `aborted at ${a.atSecond} s: ${a.check.scope} ${a.check.metric} ${a.check.actual} (limit ${a.check.limit}, abort_on_fail)`,
    );
  }
  const c = r.cleanup;
  if (c && c.left > 0) {
    lines.push(
      c.requested
        ? `cleanup: deleted ${c.deleted} of the ${c.left} record(s) the run created${c.failed.length > 0 ? `; ${c.failed.length} could not be deleted` : ''}`
        : `note: the run created ${c.left} record(s) it did not delete (use --cleanup to delete them)`,
    );
  }
  for (const c of r.verdict.checks.filter((c) => !c.passed)) {
    lines.push(`threshold breached: ${c.scope} ${c.metric} ${c.actual} (limit ${c.limit})`);
  }
  const s = r.verdict.saturation;
  for (const reason of s.reasons) lines.push(`generator saturated: ${reason}`);
  lines.push(
    `generator: event-loop delay p99 max ${s.lagP99MaxMs} ms, CPU ${s.cpuPercent}%` +
      (s.achievedRate !== undefined ? `, achieved ${(s.achievedRate * 100).toFixed(1)}% of target rate` : ''),
  );
  const w = r.targetProcess;
  if (w) {
    lines.push(
      `target pid ${w.pid}: CPU avg ${w.cpuAvgPercent}% max ${w.cpuMaxPercent}%, RSS ${w.rssStartMb} -> ${w.rssEndMb} MB ` +
        `(slope ${w.rssSlopeMbPerMin} MB/min, ${w.memoryTrend})${w.exited ? ', exited during the run' : ''}`,
    );
  }
  const m = r.targetMetrics;
  if (m) {
    const pool = m.connectionsWaitingMax === null ? '' : `, pool waiting max ${m.connectionsWaitingMax}`;
    const cache = m.cacheHitPercent === null ? 'no block read' : `cache hit ${m.cacheHitPercent}%`;
    lines.push(
      `target /metrics: CPU avg ${m.cpuAvgPercent}% max ${m.cpuMaxPercent}%, RSS max ${m.rssMaxMb} MB, ` +
        `${m.requestsAnswered} requests answered, ${m.slowStatements} slow statements, ${cache}${pool}` +
        (m.failedReadings ? `; ${m.failedReadings} readings failed (${m.firstFailure})` : ''),
    );
  }
  lines.push(`verdict: ${r.verdict.status.toUpperCase()} (exit ${r.verdict.exitCode})`);
  return lines.join('\n');
}
