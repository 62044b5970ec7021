import { describe, expect, it } from 'vitest';
import { renderChart } from '../../../src/benchmarks/report/charts';

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
});
