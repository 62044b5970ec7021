import { describe, expect, it } from 'vitest';
import { shardUsers } from '../../../src/benchmarks/engine/executor';
import {
  decodeHistogram,
  encodeHistogram,
  mergeInto,
  newHistogram,
  recordUs,
  summarize,
} from '../../../src/benchmarks/engine/histogram';
import { classify, errorRate } from '../../../src/benchmarks/engine/outcome';
import { monitoredDelayMs, Recorder } from '../../../src/benchmarks/engine/recorder';
import { ArrivalClock, shorthandStages } from '../../../src/benchmarks/engine/stages';
import { Aggregator } from '../../../src/benchmarks/report/aggregate';

describe('classify', () => {
  it('separates expected statuses, 429/503 and failures', () => {
    expect(classify(200, [200])).toBe('ok');
    expect(classify(201, [200, 201])).toBe('ok');
    expect(classify(429, [200])).toBe('throttled');
    expect(classify(503, [200])).toBe('throttled');
    expect(classify(503, [200, 503])).toBe('ok');
    expect(classify(500, [200])).toBe('failed');
    expect(classify(404, [200])).toBe('failed');
  });

  it('computes the error rate without the throttled requests, transport errors included', () => {
    expect(errorRate({ count: 100, failed: 5, errors: 5, throttled: 50 })).toBe(0.2);
    expect(errorRate({ count: 10, failed: 0, errors: 0, throttled: 10 })).toBe(0);
  });
});

describe('Recorder and Aggregator', () => {
  it('merges per-second snapshots of several threads into exact totals and percentiles', () => {
    let now = 0;
    const a = new Recorder(2, 0, () => now);
    const b = new Recorder(2, 0, () => now);
    for (let i = 1; i <= 100; i++) a.record(0, i * 1000, 'ok', 200); // 1..100 ms
    b.record(1, 500_000, 'throttled', 429);
    b.error(1, 'ECONNRESET');
    now = 1500;
    for (let i = 101; i <= 200; i++) b.record(0, i * 1000, i % 2 ? 'failed' : 'ok', i % 2 ? 500 : 200);
    now = 2000;
    const agg = new Aggregator(['s0', 's1'], 2);
    const finalA = agg.add(a.flush());
    expect(finalA).toEqual([]); // b has not sent second 0 yet
    const finalB = agg.add(b.flush());
    expect(finalB.map((p) => p.t)).toEqual([0, 1]);
    agg.finish();
    a.close();
    b.close();
    expect(agg.totalCounters).toMatchObject({ count: 202, ok: 150, failed: 50, throttled: 1, errors: 1 });
    expect(agg.scenarioCounters[1]!.statuses).toEqual({ '429': 1, 'error:ECONNRESET': 1 });
    expect(agg.scenarioHistograms[0]!.totalCount).toBe(200);
    expect(agg.scenarioHistograms[0]!.getValueAtPercentile(50) / 1000).toBeCloseTo(100, 0);
    expect(agg.totalHistogram.maxValue / 1000).toBeCloseTo(500, 0);
    expect(agg.timeline.map((p) => [p.t, p.rps, p.errors, p.throttled])).toEqual([
      [0, 102, 1, 1],
      [1, 100, 50, 0],
    ]);
    expect(agg.timeline[0]!.scenarios.s0!.latency.p99).toBeCloseTo(99, 0);
  });

  it('merges snapshots that keep their histograms in the thread exactly, leaving the sources unchanged', () => {
    let now = 0;
    const a = new Recorder(1, 0, () => now, true, false);
    const b = new Recorder(1, 0, () => now, true, false);
    const all = newHistogram();
    for (let i = 1; i <= 300; i++) {
      const us = (i * 7919) % 90_000;
      (i % 3 ? a : b).record(0, us, 'ok', 200);
      recordUs(all, us);
    }
    now = 1000;
    const [sa, sb] = [a.flush(), b.flush()];
    const counts = [sa[0]!.scenarios[0]!.latency!.totalCount, sb[0]!.scenarios[0]!.latency!.totalCount];
    const agg = new Aggregator(['s0'], 2);
    agg.add(sa);
    const [point] = agg.add(sb);
    expect(point!.latency).toEqual(summarize(all));
    expect(point!.scenarios.s0!.latency).toEqual(summarize(all));
    expect(summarize(agg.totalHistogram)).toEqual(summarize(all));
    expect(agg.scenarioHistograms[0]!.totalCount).toBe(300);
    expect([sa[0]!.scenarios[0]!.latency!.totalCount, sb[0]!.scenarios[0]!.latency!.totalCount]).toEqual(
      counts,
    );
  });

  it('puts a result that completes after its second was emitted into the next second, never losing it', () => {
    let now = 0;
    const r = new Recorder(1, 0, () => now);
    now = 100;
    r.record(0, 10, 'ok', 200);
    now = 1200;
    expect(r.flush().map((s) => [s.second, s.scenarios[0]!.count])).toEqual([[0, 1]]);
    now = 900; // a completion stamped earlier than the last flush
    r.record(0, 10, 'ok', 200);
    now = 2100;
    const snaps = r.flush();
    r.close();
    expect(snaps.map((s) => [s.second, s.scenarios[0]!.count])).toEqual([[1, 1]]);
  });

  it('counts for each second the most users that ran in it, the last partial second included', () => {
    let now = 0;
    const r = new Recorder(1, 0, () => now, true);
    r.activeUsers = 3;
    r.activeUsers = 5;
    r.activeUsers = 4;
    now = 1000;
    const first = r.flush();
    now = 1400;
    r.record(0, 10, 'ok', 200);
    // The run ends: every user stops before the final flush.
    r.activeUsers = 0;
    const last = r.flush(true);
    r.close();
    expect(first.map((s) => [s.second, s.activeUsers])).toEqual([[0, 5]]);
    expect(last.map((s) => [s.second, s.activeUsers])).toEqual([[1, 4]]);
  });
});

describe('generator event-loop delay', () => {
  it("reports what exceeds the monitor's own 20 ms timer, so an idle generator shows no delay", () => {
    expect(monitoredDelayMs(20.2e6)).toBeCloseTo(0.2, 5);
    expect(monitoredDelayMs(19.1e6)).toBe(0);
    expect(monitoredDelayMs(125e6)).toBe(105);
  });
});

describe('latency summaries', () => {
  it('are the library percentiles and mean, computed in one pass', () => {
    const h = newHistogram();
    for (let i = 0; i < 5000; i++) recordUs(h, ((i * 7919) % 5000) ** 2 / 100 + 100);
    const ms = (us: number) => Math.round(us) / 1000;
    expect(summarize(h)).toEqual({
      p50: ms(h.getValueAtPercentile(50)),
      p95: ms(h.getValueAtPercentile(95)),
      p99: ms(h.getValueAtPercentile(99)),
      max: ms(h.maxValue),
      mean: ms(h.mean),
    });
    expect(summarize(newHistogram())).toEqual({ p50: 0, p95: 0, p99: 0, max: 0, mean: 0 });
  });
});

describe('histogram merges', () => {
  it("add exactly what the library's add adds: counts, total, max and min, decoded histograms included", () => {
    const into = newHistogram();
    const expected = newHistogram();
    for (const [from, to] of [
      [1, 2_000],
      [150, 80_000],
      [10_000, 599_000_000],
    ] as const) {
      const part = newHistogram();
      for (let i = 0; i < 2000; i++) recordUs(part, from + (((i * 7919) % 2000) / 2000) * (to - from));
      for (const h of [part, decodeHistogram(encodeHistogram(part))]) {
        mergeInto(into, h);
        expected.add(h);
      }
    }
    mergeInto(into, newHistogram());
    expect(into.totalCount).toBe(expected.totalCount);
    expect(into.maxValue).toBe(expected.maxValue);
    expect(into.minNonZeroValue).toBe(expected.minNonZeroValue);
    expect(encodeHistogram(into)).toBe(encodeHistogram(expected));
    expect(summarize(into)).toEqual(summarize(expected));
  });
});

describe('open-model arrivals', () => {
  it('spaces arrivals at the target rate after a linear ramp', () => {
    const flat = new ArrivalClock(shorthandStages(10, 0, 10));
    expect(flat.timeOf(0)).toBe(0);
    expect(flat.timeOf(10)).toBe(1);
    // 10/s ramping over 4 s: 20 arrivals during the ramp, then one every 0.1 s.
    const ramp = new ArrivalClock(shorthandStages(10, 4, 10));
    expect(ramp.timeOf(5)).toBeCloseTo(2, 6);
    expect(ramp.timeOf(20)).toBeCloseTo(4, 6);
    expect(ramp.timeOf(30)).toBeCloseTo(5, 6);
  });

  it('splits users across generator threads without overlap', () => {
    const all = [0, 1, 2].flatMap((index) => shardUsers(10, { index, count: 3 }));
    expect(all.sort((x, y) => x - y)).toEqual([...Array(10).keys()]);
  });
});
