/**
 * The chart of where the server spent its time (`server_timing`): one stacked horizontal bar per
 * scenario, a segment per stage. Self-contained as the functions of `charts.ts` are (nothing from outside
 * its body, plain data in and SVG text out), so a page may run its source as well.
 */

/** One bar: a scenario's mean time per stage in ms, in the server's order, and its mean total. */
export interface StageBar {
  label: string;
  stages: Array<[stage: string, meanMs: number]>;
  /** The server's own `total` stage, drawn as the bar's figure (the segments' sum when absent). */
  totalMs?: number;
}

/**
 * A responsive SVG of stacked horizontal bars: one per scenario, one colour per stage (the same stage the
 * same colour in every bar), a legend of the stages, each segment's value in ms written in it when it is
 * wide enough, every segment's value in its tooltip, and the total at the end of the bar.
 */
export function renderStageBars(title: string, bars: StageBar[]): string {
  // Twelve colours far enough apart that neighbouring segments stay apart (the server names eleven stages).
  const colors = [
    '#2563eb',
    '#dc2626',
    '#16a34a',
    '#d97706',
    '#7c3aed',
    '#0891b2',
    '#db2777',
    '#4b5563',
    '#92400e',
    '#1e3a8a',
    '#0d9488',
    '#9333ea',
  ];
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : `${+v.toFixed(2)}`);
  const W = 760;
  const pad = { l: 150, r: 90, t: 44 };
  const w = W - pad.l - pad.r;
  const barH = 28;
  const gap = 14;
  const names: string[] = [];
  for (const b of bars) for (const [name] of b.stages) if (!names.includes(name)) names.push(name);
  const colorOf = (name: string) => colors[names.indexOf(name) % colors.length];
  const sums = bars.map((b) => b.stages.reduce((n, [, ms]) => n + ms, 0));
  const top = Math.max(...sums, ...bars.map((b) => b.totalMs ?? 0), 1e-6);
  const sx = (ms: number) => (ms / top) * w;
  // Legend entries flow left to right, each as wide as its name (about 8.4 units per character at 15).
  const legend: Array<{ x: number; row: number; name: string }> = [];
  let lx = 0;
  let row = 0;
  for (const name of names) {
    const width = 28 + name.length * 8.4 + 18;
    if (lx > 0 && lx + width > W - pad.l) {
      lx = 0;
      row++;
    }
    legend.push({ x: lx, row, name });
    lx += width;
  }
  const barsBottom = pad.t + bars.length * (barH + gap);
  const height = barsBottom + 10 + (row + 1) * 24 + 6;
  let out = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${height}" width="100%" role="img" aria-label="${esc(title)}" font-family="system-ui, sans-serif">`;
  out += `<text x="${pad.l}" y="24" font-size="20" font-weight="600" fill="#111827">${esc(title)}</text>`;
  out += `<text x="${W - 16}" y="24" font-size="15" text-anchor="end" fill="#6b7280">ms per request</text>`;
  bars.forEach((b, i) => {
    const y = pad.t + i * (barH + gap);
    const short = b.label.length > 18 ? `${b.label.slice(0, 17)}…` : b.label;
    out += `<text x="${pad.l - 10}" y="${y + barH / 2 + 5}" text-anchor="end" font-size="15" fill="#111827"><title>${esc(b.label)}</title>${esc(short)}</text>`;
    let x = pad.l;
    for (const [name, ms] of b.stages) {
      const width = sx(ms);
      const color = colorOf(name);
      out += `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(width, 0).toFixed(1)}" height="${barH}" fill="${color}"><title>${esc(name)}: ${fmt(ms)} ms</title></rect>`;
      const text = fmt(ms);
      if (width >= text.length * 8 + 8) {
        out += `<text x="${(x + width / 2).toFixed(1)}" y="${y + barH / 2 + 5}" text-anchor="middle" font-size="13" fill="#fff">${text}</text>`;
      }
      x += width;
    }
    out += `<text x="${(x + 8).toFixed(1)}" y="${y + barH / 2 + 5}" font-size="15" font-weight="600" fill="#111827">${fmt(b.totalMs ?? sums[i]!)} ms</text>`;
  });
  out += `<line x1="${pad.l}" x2="${pad.l}" y1="${pad.t - 6}" y2="${barsBottom - gap + 6}" stroke="#9ca3af"/>`;
  for (const e of legend) {
    const x = pad.l + e.x;
    const y = barsBottom + 10 + 14 + e.row * 24;
    out += `<rect x="${x}" y="${y - 12}" width="14" height="14" rx="3" fill="${colorOf(e.name)}"/>`;
    out += `<text x="${x + 20}" y="${y}" font-size="15" fill="#111827">${esc(e.name)}</text>`;
  }
  return `${out}</svg>`;
}
