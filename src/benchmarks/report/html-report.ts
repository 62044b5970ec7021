import { CHART_GRID_CSS, renderChart, standardCharts } from './charts';
import { describeLoad } from './describe-load';
import type { LoadResult, MetricsResult } from './result';
import { serverTimingSection } from './server-stages';
import { formatSummary } from './summary-table';

/** Escapes text for HTML. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Page CSS shared by the report and the live dashboard. */
export const PAGE_CSS =
  'body{font-family:system-ui,sans-serif;margin:0;padding:20px 28px;color:#111827;background:#f9fafb}' +
  'h1{font-size:26px;margin:0 0 12px}h2{font-size:20px;margin:24px 0 10px}' +
  'pre{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px;overflow:auto;font-size:13px}' +
  '.verdict{display:inline-block;padding:4px 12px;border-radius:6px;color:#fff;font-size:18px;vertical-align:middle}' +
  '.pass{background:#16a34a}.fail{background:#dc2626}.live{background:#2563eb}' +
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0 0 12px}dt{font-weight:600}dd{margin:0}' +
  'table{border-collapse:collapse;background:#fff;font-size:14px}td,th{border:1px solid #e5e7eb;padding:4px 10px;text-align:left}' +
  CHART_GRID_CSS;

/** The failed checks of every scenario and step, as table rows. */
function checkRows(r: LoadResult): string {
  const rows: string[] = [];
  const add = (scope: string, m: MetricsResult) => {
    for (const [check, c] of Object.entries(m.checks ?? {})) {
      rows.push(
        `<tr><td>${esc(scope)}</td><td>${esc(check)}</td><td>${c.failed}</td><td>${esc(c.reason)}</td></tr>`,
      );
    }
  };
  for (const s of r.scenarios) {
    add(s.label, s);
    for (const st of s.steps ?? []) add(`${s.label} > ${st.name}`, st);
  }
  if (rows.length === 0) return '';
  return `<h2>Failed checks</h2><table><tr><th>scenario</th><th>check</th><th>failures</th><th>first reason</th></tr>${rows.join('')}</table>`;
}

/**
 * The self-contained HTML report (one file, inline SVG, no script or remote asset): verdict, summary
 * table, failed checks, the server's stages (`server_timing`), and the charts the live dashboard also draws (same code), laid out in a grid
 * that uses the page's width.
 */
export function renderHtml(r: LoadResult): string {
  const charts = standardCharts({
    timeline: r.timeline,
    labels: r.scenarios.map((s) => s.label),
    open: r.config.model === 'open',
    durationSeconds: r.config.plannedDurationSeconds,
    target: r.targetProcess,
    server: r.targetMetrics,
  });
  const ok = r.verdict.status === 'pass';
  const w = r.targetProcess;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Load test ${esc(r.startedAt)}</title><style>${PAGE_CSS}</style></head><body>
<h1>Load test <span class="verdict ${ok ? 'pass' : 'fail'}">${esc(r.verdict.status)}</span></h1>
<dl><dt>Target</dt><dd>${esc(r.config.targetUrl)} (payload encryption: ${esc(r.config.encryptionMode)})</dd>
<dt>Load</dt><dd>${esc(describeLoad(r))}</dd>
<dt>Run</dt><dd>${esc(r.startedAt)} to ${esc(r.finishedAt)}; config ${esc(r.config.path)}</dd>
${w ? `<dt>Target process</dt><dd>pid ${w.pid}: memory ${esc(w.memoryTrend)} (${w.rssSlopeMbPerMin} MB/min)</dd>` : ''}</dl>
<div class="charts">${charts.map((c) => `<div class="chart">${renderChart(c)}</div>`).join('\n')}</div>
${serverTimingSection(r, esc)}
${checkRows(r)}
<h2>Summary</h2>
<pre>${esc(formatSummary(r))}</pre>
</body></html>
`;
}
