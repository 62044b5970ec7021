import { chartSource } from '../report/charts';
import { esc, PAGE_CSS } from '../report/html-report';
import { renderStageBars } from '../report/stage-chart';

/** What the page knows before the first update. */
export interface DashboardInfo {
  targetUrl: string;
  labels: string[];
  open: boolean;
  durationSeconds: number;
  /** `server_timing: true`: the page draws the server's stages per scenario as well. */
  serverTiming?: boolean;
}

/** JSON for an inline script (no `</script>` can close it early). */
function inlineJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c');
}

/**
 * The live dashboard: the report's charts (the same functions, shipped as source), redrawn on every
 * server-sent event, once a second. An event carries the new second of the timeline and the target's
 * latest samples; the first one carries everything so far, so the page may be opened mid-run. When the run
 * asks for `Server-Timing`, every event also carries each scenario's mean time per server stage so far, drawn
 * as the report's stacked bars.
 */
export function dashboardPage(info: DashboardInfo): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Load test (live) ${esc(info.targetUrl)}</title><style>${PAGE_CSS}</style></head><body>
<h1>Load test <span class="verdict live" id="status">starting</span></h1>
<dl><dt>Target</dt><dd>${esc(info.targetUrl)}</dd><dt>Progress</dt><dd id="progress">waiting for the first second</dd></dl>
<div class="charts" id="charts"></div>
${info.serverTiming ? '<h2>Server stages</h2><div class="charts"><div class="chart" id="stages">waiting for the first response with Server-Timing</div><div class="chart" id="stage-table" style="overflow-x:auto"></div></div>' : ''}
<script>
${chartSource()}
const renderStageBars = ${renderStageBars.toString()};
const info = ${inlineJson(info)};
const data = { timeline: [], labels: info.labels, open: info.open, durationSeconds: info.durationSeconds, target: undefined };
const chartsEl = document.getElementById('charts');
const statusEl = document.getElementById('status');
const progressEl = document.getElementById('progress');
const stagesEl = document.getElementById('stages');
const stageTableEl = document.getElementById('stage-table');
const escText = (s) => s.replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
// Beside the bars, as in the report: a row per stage, a column per scenario, the server's total last.
function stageTable(bars) {
  const names = [];
  for (const b of bars) for (const [name] of b.stages) if (!names.includes(name)) names.push(name);
  const cell = (b, name) => { const s = b.stages.find(([n]) => n === name); return s ? String(s[1]) : ''; };
  const rows = names.map((n) => '<tr><th>' + escText(n) + '</th>' + bars.map((b) => '<td>' + cell(b, n) + '</td>').join('') + '</tr>');
  rows.push('<tr><th>total</th>' + bars.map((b) => '<td>' + (b.totalMs ?? '') + '</td>').join('') + '</tr>');
  return '<table><tr><th>mean ms</th>' + bars.map((b) => '<th>' + escText(b.label) + '</th>').join('') + '</tr>' + rows.join('') + '</table>';
}
function draw() {
  chartsEl.innerHTML = standardCharts(data).map((c) => '<div class="chart">' + renderChart(c) + '</div>').join('');
  if (stagesEl && data.stages && data.stages.length > 0) {
    stagesEl.innerHTML = renderStageBars('Where the server spent its time', data.stages);
    stageTableEl.innerHTML = stageTable(data.stages);
  }
  const p = data.timeline[data.timeline.length - 1];
  if (p) {
    progressEl.textContent = Math.min(p.t + 1, info.durationSeconds) + ' / ' + info.durationSeconds + ' s, ' +
      p.users + ' users, ' + p.rps + ' req/s, p95 ' + p.latency.p95.toFixed(1) + ' ms, ' + p.errors + ' errors/s';
  }
}
const events = new EventSource('events');
events.onmessage = (e) => {
  const m = JSON.parse(e.data);
  if (m.timeline) data.timeline = m.timeline;
  if (m.point) data.timeline.push(m.point);
  if (m.target) data.target = m.target;
  if (m.server) data.server = m.server;
  if (m.stages) data.stages = m.stages;
  if (m.status) statusEl.textContent = m.status;
  if (m.status && m.status !== 'running') {
    statusEl.className = 'verdict ' + (m.status === 'pass' ? 'pass' : 'fail');
    events.close();
  }
  draw();
};
</script>
</body></html>
`;
}
