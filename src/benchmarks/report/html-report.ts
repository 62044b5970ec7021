import type { TimelinePoint } from './aggregate';
import type { LoadResult } from './result';
import { formatSummary } from './summary-table';
import { esc, lineChart, type Series } from './svg-chart';

const pts = (tl: TimelinePoint[], f: (p: TimelinePoint) => number): Array<[number, number]> =>
  tl.map((p) => [p.t + 1, f(p)]);

/**
 * The self-contained HTML report (one file, inline SVG, no script or remote asset): verdict, summary
 * table, and over time the RPS, p50/p95/p99 and errors of the total and of each scenario, the generator's
 * event-loop delay, and the watched process's CPU and RSS.
 */
export function renderHtml(r: LoadResult): string {
  const tl = r.timeline;
  const labels = r.scenarios.map((s) => s.label);
  const charts = [
    lineChart('Requests per second', 'req/s', [
      { name: 'total', points: pts(tl, (p) => p.rps) },
      ...labels.map((l) => ({ name: l, points: pts(tl, (p) => p.scenarios[l]?.rps ?? 0) })),
    ]),
    lineChart('Latency, all scenarios', 'ms', [
      { name: 'p50', points: pts(tl, (p) => p.latency.p50) },
      { name: 'p95', points: pts(tl, (p) => p.latency.p95) },
      { name: 'p99', points: pts(tl, (p) => p.latency.p99) },
    ]),
    lineChart('Errors and 429/503 per second', 'req/s', [
      { name: 'errors', points: pts(tl, (p) => p.errors) },
      { name: '429/503', points: pts(tl, (p) => p.throttled) },
      ...(r.config.model === 'open' ? [{ name: 'dropped arrivals', points: pts(tl, (p) => p.dropped) }] : []),
    ]),
    ...labels.map((l) =>
      lineChart(`Scenario ${l}`, 'ms / errors per s', [
        { name: 'p50 ms', points: pts(tl, (p) => p.scenarios[l]?.latency.p50 ?? 0) },
        { name: 'p95 ms', points: pts(tl, (p) => p.scenarios[l]?.latency.p95 ?? 0) },
        { name: 'p99 ms', points: pts(tl, (p) => p.scenarios[l]?.latency.p99 ?? 0) },
        { name: 'errors/s', points: pts(tl, (p) => p.scenarios[l]?.errors ?? 0) },
      ]),
    ),
    lineChart('Generator event-loop delay p99', 'ms', [{ name: 'delay', points: pts(tl, (p) => p.lagMs) }]),
  ];
  const w = r.targetProcess;
  if (w) {
    const cpu: Series = { name: `CPU % (pid ${w.pid})`, points: w.samples.map((s) => [s.t, s.cpuPercent]) };
    const rss: Series = { name: 'RSS MB', points: w.samples.map((s) => [s.t, s.rssMb]) };
    charts.push(
      lineChart('Target process CPU', '% of one core', [cpu]),
      lineChart(`Target process memory (${w.memoryTrend}, ${w.rssSlopeMbPerMin} MB/min)`, 'MB', [rss]),
    );
  }
  const ok = r.verdict.status === 'pass';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Load test ${esc(r.startedAt)}</title>
<style>body{font-family:system-ui,sans-serif;margin:24px;color:#111}pre{background:#f3f4f6;padding:12px;overflow:auto}
.verdict{display:inline-block;padding:4px 10px;border-radius:4px;color:#fff;background:${ok ? '#16a34a' : '#dc2626'}}
svg{display:block;margin:16px 0}dt{font-weight:bold}dd{margin:0 0 6px 0}</style></head><body>
<h1>Load test <span class="verdict">${esc(r.verdict.status)}</span></h1>
<dl><dt>Target</dt><dd>${esc(r.config.targetUrl)} (payload encryption: ${esc(r.config.encryptionMode)})</dd>
<dt>Load</dt><dd>${r.config.model === 'open' ? `open model, ${+(r.config.targetRps ?? 0).toFixed(2)} req/s target` : 'closed model'}, ${r.config.users} users, ramp-up ${r.config.rampUpSeconds} s, ${r.durationSeconds} s measured, ${r.config.workers} generator thread(s)</dd>
<dt>Run</dt><dd>${esc(r.startedAt)} to ${esc(r.finishedAt)}; config ${esc(r.config.path)}</dd></dl>
<pre>${esc(formatSummary(r))}</pre>
${charts.join('\n')}
</body></html>
`;
}
