import { describe, expect, it } from 'vitest';
import { renderChart, standardCharts } from '../../../src/benchmarks/report/charts';

/** The y-axis labels of a rendered chart, bottom to top. */
function yLabels(svg: string): number[] {
  return [...svg.matchAll(/<text x="52" y="[\d.]+" text-anchor="end"[^>]*>([^<]+)<\/text>/g)].map((m) =>
    Number(m[1]),
  );
}

const chart = (top: number) =>
  renderChart({
    title: 't',
    unit: 'ms',
    series: [
      {
        name: 'p99',
        points: [
          [1, top / 2],
          [2, top],
        ],
      },
    ],
  });

describe('renderChart', () => {
  it('puts gridlines at round steps of 1, 2 or 5 times a power of ten, at most five intervals', () => {
    expect(yLabels(chart(22.4))).toEqual([0, 5, 10, 15, 20, 25]);
    expect(yLabels(chart(97))).toEqual([0, 20, 40, 60, 80, 100]);
    expect(yLabels(chart(1.97))).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(yLabels(chart(0.35))).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
    expect(yLabels(chart(3000))).toEqual([0, 1000, 2000, 3000]);
  });

  it('draws an axis from 0 to 1 when every value is 0', () => {
    expect(yLabels(chart(0))).toEqual([0, 0.25, 0.5, 0.75, 1]);
  });

  it('breaks a line at a gap and draws a point alone between gaps as a dot', () => {
    const svg = renderChart({
      title: 't',
      unit: 'ms',
      series: [
        {
          name: 'p50',
          points: [
            [1, 4],
            [2, 5],
            [3, null],
            [4, 6],
            [5, null],
          ],
        },
      ],
    });
    expect(svg.match(/<polyline /g)).toHaveLength(1);
    expect(svg.match(/<circle /g)).toHaveLength(1);
    // The legend gives the latest value there is.
    expect(svg).toContain('p50 <tspan font-weight="600">6</tspan>');
  });
});

describe('standardCharts', () => {
  it('leaves a gap in latency lines for a second in which no response completed, not a fall to 0', () => {
    const latency = { p50: 12, p95: 20, p99: 30 };
    const second = (t: number, rps: number) => ({
      t,
      rps,
      latency: rps > 0 ? latency : { p50: 0, p95: 0, p99: 0 },
      errors: 0,
      throttled: 0,
      dropped: 0,
      lagMs: 1,
      users: 2,
      scenarios: {
        a: { rps, latency: rps > 0 ? latency : { p50: 0, p95: 0, p99: 0 }, errors: 0 },
        b: { rps: 5, latency, errors: 0 },
      },
    });
    const charts = standardCharts({
      timeline: [second(0, 5), second(1, 0), second(2, 5)],
      labels: ['a', 'b'],
      open: false,
      durationSeconds: 3,
    });
    const series = (title: string, name: string) =>
      charts.find((c) => c.title === title)!.series.find((s) => s.name === name)!.points;
    expect(series('Latency, all scenarios', 'p50')).toEqual([
      [1, 12],
      [2, null],
      [3, 12],
    ]);
    expect(series('Scenario a', 'p99')).toEqual([
      [1, 30],
      [2, null],
      [3, 30],
    ]);
    // A rate of 0 is a measurement: the requests-per-second line does not break.
    expect(series('Requests per second', 'a')).toEqual([
      [1, 5],
      [2, 0],
      [3, 5],
    ]);
  });
});
