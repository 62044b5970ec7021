/** One line of a chart. */
export interface Series {
  name: string;
  points: Array<[number, number]>;
}

/** Horizontal space of one legend entry; entries wrap onto more rows. */
const LEGEND_STEP = 160;

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];

/** Escapes text for HTML and SVG. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
}

/**
 * A self-contained inline SVG line chart (no script, no external asset): axes with four gridlines, one
 * polyline per series, a legend wrapping onto as many rows as it needs. x is seconds since start.
 */
export function lineChart(
  title: string,
  yUnit: string,
  series: Series[],
  width = 860,
  plotHeight = 172,
): string {
  const pad = { l: 56, r: 12, t: 28 };
  const w = width - pad.l - pad.r;
  const h = plotHeight;
  const perRow = Math.max(1, Math.floor(w / LEGEND_STEP));
  const legendRows = Math.ceil(series.length / perRow);
  const height = pad.t + h + 24 + legendRows * 16;
  const all = series.flatMap((s) => s.points);
  const xMax = Math.max(1, ...all.map(([x]) => x));
  const yMax = niceMax(Math.max(0, ...all.map(([, y]) => y)));
  const sx = (x: number) => pad.l + (x / xMax) * w;
  const sy = (y: number) => pad.t + h - (y / yMax) * h;
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const y = sy(yMax * f);
      return `<line x1="${pad.l}" x2="${pad.l + w}" y1="${y}" y2="${y}" stroke="#e5e7eb"/><text x="${pad.l - 6}" y="${y + 4}" text-anchor="end" font-size="11">${+(yMax * f).toPrecision(3)}</text>`;
    })
    .join('');
  const lines = series
    .map((s, i) => {
      const d = s.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
      return `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.5" points="${d}"/>`;
    })
    .join('');
  const legend = series
    .map(
      (s, i) =>
        `<g transform="translate(${pad.l + (i % perRow) * LEGEND_STEP},${pad.t + h + 34 + Math.floor(i / perRow) * 16})"><rect width="10" height="10" y="-9" fill="${COLORS[i % COLORS.length]}"/><text x="14" font-size="11">${esc(s.name)}</text></g>`,
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${esc(title)}">` +
    `<text x="${pad.l}" y="16" font-size="13" font-weight="bold">${esc(title)}</text>` +
    `<text x="${pad.l + w}" y="16" font-size="11" text-anchor="end">${esc(yUnit)}</text>` +
    `${grid}<line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${pad.t + h}" stroke="#9ca3af"/>` +
    `<text x="${pad.l + w}" y="${pad.t + h + 14}" text-anchor="end" font-size="11">${xMax} s</text>` +
    `${lines}${legend}</svg>`
  );
}
