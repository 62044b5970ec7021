/**
 * The charts of the report and of the live dashboard: one implementation for both. The report calls
 * these functions when it is written; the dashboard page receives their source (`chartSource()`) and
 * calls them in the browser on every update. So both functions are self-contained: they use nothing
 * from outside their own body at run time (no value import, no module constant; type imports are erased),
 * only plain data in and SVG text out.
 */
import type { TargetMetricsSample } from '../watch/target-metrics';

/** One line of a chart: [x seconds, y] points; a null y is a gap (a second with nothing to measure). */
export interface ChartSeries {
  name: string;
  points: Array<[number, number | null]>;
}

/** One chart. */
export interface ChartSpec {
  title: string;
  unit: string;
  series: ChartSeries[];
}

/** The data the standard charts are drawn from (the timeline of a result, or of a run so far). */
export interface ChartData {
  timeline: Array<{
    t: number;
    rps: number;
    latency: { p50: number; p95: number; p99: number };
    errors: number;
    throttled: number;
    dropped: number;
    lagMs: number;
    users: number;
    scenarios: Record<
      string,
      { rps: number; latency: { p50: number; p95: number; p99: number }; errors: number }
    >;
  }>;
  labels: string[];
  open: boolean;
  /** Planned seconds: a last partial second after them (requests still in flight) is not drawn. */
  durationSeconds: number;
  /** Samples of the watched target process, if any. */
  target?: { pid: number; samples: Array<{ t: number; cpuPercent: number; rssMb: number }> };
  /** `--watch-target`: the target's own metrics, one sample a second. */
  server?: { samples: readonly TargetMetricsSample[] };
}

/**
 * A responsive SVG line chart: it fills its container's width (viewBox scaling), with large labels, a
 * light grid, and a legend giving each series' latest value (in bold) so the chart reads at a glance.
 * A line breaks at a gap; a point alone between gaps is a dot.
 */
export function renderChart(spec: ChartSpec): string {
  const colors = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const fmt = (v: number) =>
    Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : `${+v.toFixed(2)}`;
  const W = 760;
  const pad = { l: 60, r: 16, t: 40, b: 30 };
  const h = 200;
  const w = W - pad.l - pad.r;
  // Legend entries flow left to right, each as wide as its text (about 8.4 units per character at 15).
  const legend: Array<{ x: number; row: number; text: string; value: string }> = [];
  let lx = 0;
  let row = 0;
  for (const s of spec.series) {
    const last = s.points.findLast((p) => p[1] !== null)?.[1];
    const value = last === undefined || last === null ? '' : fmt(last);
    const width = 28 + (s.name.length + value.length + 1) * 8.4 + 18;
    if (lx > 0 && lx + width > w) {
      lx = 0;
      row++;
    }
    legend.push({ x: lx, row, text: s.name, value });
    lx += width;
  }
  const height = pad.t + h + pad.b + (row + 1) * 24 + 6;
  let xMax = 1;
  let yTop = 0;
  for (const s of spec.series) {
    for (const [x, y] of s.points) {
      if (x > xMax) xMax = x;
      if (y !== null && y > yTop) yTop = y;
    }
  }
  // Round gridlines: a step of 1, 2 or 5 times a power of ten giving at most five intervals, and the top
  // of the axis at the first step at or above the highest value (0-5-10-...-25, never 6.25 or 18.8).
  let yStep = 0.25;
  if (yTop > 0) {
    const rough = yTop / 5;
    const p = 10 ** Math.floor(Math.log10(rough));
    yStep = ([1, 2, 5, 10].find((m) => m * p >= rough) ?? 10) * p;
  }
  const yMax = yTop > 0 ? Math.max(1, Math.ceil(yTop / yStep - 1e-9)) * yStep : 1;
  const sx = (x: number) => pad.l + (x / xMax) * w;
  const sy = (y: number) => pad.t + h - (y / yMax) * h;
  let out = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${height}" width="100%" role="img" aria-label="${esc(spec.title)}" font-family="system-ui, sans-serif">`;
  out += `<text x="${pad.l}" y="24" font-size="20" font-weight="600" fill="#111827">${esc(spec.title)}</text>`;
  out += `<text x="${W - pad.r}" y="24" font-size="15" text-anchor="end" fill="#6b7280">${esc(spec.unit)}</text>`;
  for (let i = 0; i * yStep <= yMax + yStep / 2; i++) {
    const value = +(i * yStep).toPrecision(6);
    const y = sy(value).toFixed(1);
    out += `<line x1="${pad.l}" x2="${pad.l + w}" y1="${y}" y2="${y}" stroke="#e5e7eb"/>`;
    out += `<text x="${pad.l - 8}" y="${+y + 5}" text-anchor="end" font-size="14" fill="#374151">${value}</text>`;
  }
  // Whole seconds on the x axis, at a round step giving at most about six ticks.
  const rough = xMax / 6;
  const step =
    [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600].find((m) => m >= rough) ?? Math.ceil(rough);
  for (let x = 0; x <= xMax; x += step) {
    out += `<text x="${sx(x).toFixed(1)}" y="${pad.t + h + 22}" text-anchor="middle" font-size="14" fill="#374151">${x} s</text>`;
  }
  out += `<line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${pad.t + h}" stroke="#9ca3af"/>`;
  spec.series.forEach((s, i) => {
    const color = colors[i % colors.length];
    // Runs of consecutive points with a value: a polyline each, a dot for a run of one.
    const runs: Array<Array<[string, string]>> = [[]];
    for (const [x, y] of s.points) {
      if (y === null) runs.push([]);
      else runs[runs.length - 1]!.push([sx(x).toFixed(1), sy(y).toFixed(1)]);
    }
    for (const run of runs) {
      if (run.length > 1)
        out += `<polyline fill="none" stroke="${color}" stroke-width="2.5" stroke-linejoin="round" points="${run.map(([x, y]) => `${x},${y}`).join(' ')}"/>`;
      else if (run.length === 1)
        out += `<circle cx="${run[0]![0]}" cy="${run[0]![1]}" r="3.5" fill="${color}"/>`;
    }
    const e = legend[i]!;
    const x = pad.l + e.x;
    const y = pad.t + h + pad.b + 18 + e.row * 24;
    out += `<rect x="${x}" y="${y - 12}" width="14" height="14" rx="3" fill="${color}"/>`;
    out += `<text x="${x + 20}" y="${y}" font-size="15" fill="#111827">${esc(e.text)} <tspan font-weight="600">${e.value}</tspan></text>`;
  });
  return `${out}</svg>`;
}

/**
 * The standard charts of a run: request rate, latency percentiles, errors (and dropped arrivals in the
 * open model), each scenario's percentiles and errors, the generator's event-loop delay and users, and
 * the watched target's CPU and memory.
 */
export function standardCharts(data: ChartData): ChartSpec[] {
  const tl = data.timeline.filter((p) => p.t < data.durationSeconds);
  const pts = (f: (p: ChartData['timeline'][number]) => number | null): Array<[number, number | null]> =>
    tl.map((p) => [p.t + 1, f(p)]);
  const charts: ChartSpec[] = [
    {
      title: 'Requests per second',
      unit: 'req/s',
      series: [
        { name: 'total', points: pts((p) => p.rps) },
        ...(data.labels.length > 1
          ? data.labels.map((l) => ({ name: l, points: pts((p) => p.scenarios[l]?.rps ?? 0) }))
          : []),
      ],
    },
    {
      title: 'Latency, all scenarios',
      unit: 'ms',
      series: [
        // A second in which no response completed has no latency: a gap, not a fall to 0.
        { name: 'p50', points: pts((p) => (p.rps > 0 ? p.latency.p50 : null)) },
        { name: 'p95', points: pts((p) => (p.rps > 0 ? p.latency.p95 : null)) },
        { name: 'p99', points: pts((p) => (p.rps > 0 ? p.latency.p99 : null)) },
      ],
    },
    {
      title: 'Errors per second',
      unit: 'req/s',
      series: [
        { name: 'errors', points: pts((p) => p.errors) },
        { name: '429/503', points: pts((p) => p.throttled) },
        ...(data.open ? [{ name: 'dropped arrivals', points: pts((p) => p.dropped) }] : []),
      ],
    },
  ];
  if (data.labels.length > 1) {
    for (const l of data.labels) {
      const of = (p: ChartData['timeline'][number]) => {
        const s = p.scenarios[l];
        return s && s.rps > 0 ? s.latency : undefined;
      };
      charts.push({
        title: `Scenario ${l}`,
        unit: 'ms',
        series: [
          { name: 'p50', points: pts((p) => of(p)?.p50 ?? null) },
          { name: 'p95', points: pts((p) => of(p)?.p95 ?? null) },
          { name: 'p99', points: pts((p) => of(p)?.p99 ?? null) },
        ],
      });
    }
  }
  charts.push({
    title: 'Generator',
    unit: 'ms / users',
    series: [
      { name: 'event-loop delay p99 ms', points: pts((p) => p.lagMs) },
      { name: 'users', points: pts((p) => p.users) },
    ],
  });
  const target = data.target;
  if (target && target.samples.length > 0) {
    charts.push(
      {
        title: `Target CPU (pid ${target.pid})`,
        unit: '% of one core',
        series: [{ name: 'CPU %', points: target.samples.map((s) => [s.t, s.cpuPercent]) }],
      },
      {
        title: `Target memory (pid ${target.pid})`,
        unit: 'MB',
        series: [{ name: 'RSS MB', points: target.samples.map((s) => [s.t, s.rssMb]) }],
      },
    );
  }
  const server = data.server;
  if (server && server.samples.length > 0) {
    const at = <K extends keyof (typeof server.samples)[number]>(k: K): Array<[number, number | null]> =>
      server.samples.map((s) => [s.t, s[k] as number | null]);
    // One unit per chart: a line in MB beside one in % flattens the smaller one.
    charts.push(
      {
        title: 'Server CPU (/metrics)',
        unit: '% of one core',
        series: [{ name: 'CPU %', points: at('cpuPercent') }],
      },
      {
        title: 'Server memory',
        unit: 'MB',
        series: [{ name: 'RSS MB', points: at('rssMb') }],
      },
      {
        title: 'Server event loop and statement time',
        unit: 'ms',
        series: [
          { name: 'event-loop delay p99', points: at('loopDelayMs') },
          { name: 'statement mean', points: at('statementMeanMs') },
        ],
      },
      {
        title: 'Server requests and database statements',
        unit: 'per second',
        series: [
          { name: 'requests', points: at('requestsPerSecond') },
          { name: 'statements', points: at('statementsPerSecond') },
          { name: 'slow statements', points: at('slowStatements') },
        ],
      },
      {
        title: 'Server database cache and pool',
        unit: '% / connections',
        series: [
          { name: 'cache hit %', points: at('cacheHitPercent') },
          ...(server.samples.some((s) => s.connectionsOpen !== null)
            ? [
                { name: 'connections open', points: at('connectionsOpen') },
                { name: 'waiting', points: at('connectionsWaiting') },
              ]
            : []),
        ],
      },
      {
        title: 'Server background jobs',
        unit: 'items',
        series: [
          { name: 'processed/s', points: at('jobItemsPerSecond') },
          { name: 'remaining', points: at('jobItemsRemaining') },
        ],
      },
    );
  }
  return charts;
}

/** Page CSS for a grid of charts that uses the page's width (one column on narrow screens). */
export const CHART_GRID_CSS =
  '.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,520px),1fr));gap:16px}' +
  '.chart{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px}';

/**
 * The chart functions as browser script source. Under a TypeScript loader that keeps function names,
 * nested functions are wrapped in a `__name` helper; the page defines it as the identity.
 */
export function chartSource(): string {
  return `const __name = (f) => f;\nconst renderChart = ${renderChart.toString()};\nconst standardCharts = ${standardCharts.toString()};\n`;
}
