import { describe, expect, it } from 'vitest';
import { renderOpenMetrics } from '../../../backend/metrics/open-metrics';
import { DurationHistogram, LabelledCounter } from '../../../backend/metrics/registry';

describe('the OpenMetrics text', () => {
  it('writes counters with _total, escapes label values and ends with # EOF', () => {
    const counter = new LabelledCounter();
    counter.add({ path: 'a"b\\c\nd' });
    counter.add({ path: 'a"b\\c\nd' }, 2);
    const text = renderOpenMetrics([
      { type: 'counter', name: 'x_events', help: 'Events.', samples: counter.samples() },
      { type: 'gauge', name: 'x_level', help: 'Level.', samples: [{ value: Number.POSITIVE_INFINITY }] },
    ]);
    expect(text.split('\n')).toEqual([
      '# TYPE x_events counter',
      '# HELP x_events Events.',
      'x_events_total{path="a\\"b\\\\c\\nd"} 3',
      '# TYPE x_level gauge',
      '# HELP x_level Level.',
      'x_level +Inf',
      '# EOF',
      '',
    ]);
  });

  it('writes histograms as cumulative buckets, then +Inf, count and sum', () => {
    const h = new DurationHistogram([0.01, 0.1]);
    for (const s of [0.005, 0.05, 0.05, 3]) h.observe({ kind: 'select' }, s);
    const lines = renderOpenMetrics([
      { type: 'histogram', name: 'x_seconds', help: 'Time.', bounds: h.bounds, samples: h.samples() },
    ]).split('\n');
    expect(lines.slice(2, 7)).toEqual([
      'x_seconds_bucket{kind="select",le="0.01"} 1',
      'x_seconds_bucket{kind="select",le="0.1"} 3',
      'x_seconds_bucket{kind="select",le="+Inf"} 4',
      'x_seconds_count{kind="select"} 4',
      'x_seconds_sum{kind="select"} 3.105',
    ]);
  });
});
