import { describe, expect, it } from 'vitest';
import { mergeSnapshots } from '../../../src/benchmarks/engine/merge-snapshots';
import { Recorder } from '../../../src/benchmarks/engine/recorder';
import {
  addServerTiming,
  parseServerTiming,
  type StageTimes,
} from '../../../src/benchmarks/engine/server-timing';
import { Aggregator } from '../../../src/benchmarks/report/aggregate';

describe('parseServerTiming', () => {
  it("reads each metric's name and dur, ignoring desc and unknown parameters", () => {
    expect(
      parseServerTiming(
        'host;dur=0.012;desc="Host check", db;dur=1.5;desc="Database";x-extra=7, total;dur=2',
      ),
    ).toEqual([
      { name: 'host', durMs: 0.012 },
      { name: 'db', durMs: 1.5 },
      { name: 'total', durMs: 2 },
    ]);
  });

  it('takes spaces around separators, case-insensitive parameter names and a quoted dur', () => {
    expect(parseServerTiming(' a ; DUR = 3 ;desc=fast ,b;Dur="4.25"')).toEqual([
      { name: 'a', durMs: 3 },
      { name: 'b', durMs: 4.25 },
    ]);
  });

  it('keeps commas, semicolons and escaped quotes inside a quoted desc', () => {
    expect(parseServerTiming('db;desc="a, \\"b\\"; dur=9";dur=1, app;dur=2')).toEqual([
      { name: 'db', durMs: 1 },
      { name: 'app', durMs: 2 },
    ]);
  });

  it('takes the first dur of a metric', () => {
    expect(parseServerTiming('db;dur=1;dur=5')).toEqual([{ name: 'db', durMs: 1 }]);
  });

  it('leaves out metrics without a numeric dur and skips a malformed member up to its comma', () => {
    expect(
      parseServerTiming('miss, cache;desc="hit", bad;dur=abc, empty;dur=, =3, x y;dur=1, ok;dur=0.5'),
    ).toEqual([{ name: 'ok', durMs: 0.5 }]);
  });

  it('reads nothing from an empty value', () => {
    expect(parseServerTiming('')).toEqual([]);
    expect(parseServerTiming(' , ')).toEqual([]);
  });
});

describe('addServerTiming', () => {
  it('sums durations and counts per stage, over header lines and responses', () => {
    const times: StageTimes = {};
    addServerTiming(times, 'db;dur=1, total;dur=3');
    addServerTiming(times, ['db;dur=2', 'total;dur=5']);
    addServerTiming(times, undefined);
    expect(times).toEqual({ db: { sumMs: 3, count: 2 }, total: { sumMs: 8, count: 2 } });
  });
});

describe('stage times through the recorder and the aggregation', () => {
  const response = (header?: string) => ({
    status: 200,
    text: '',
    headers: header === undefined ? {} : { 'server-timing': header },
  });

  it('merges the stages of several threads exactly, per series', () => {
    const threads = [0, 1].map(() => new Recorder(2, 0, () => 500, true, true, true));
    threads[0]!.record(0, 1000, 'ok', 200);
    threads[0]!.serverTiming(0, response('db;dur=1, total;dur=2'));
    threads[1]!.record(0, 1000, 'ok', 200);
    threads[1]!.serverTiming(0, response('db;dur=3, total;dur=6'));
    threads[1]!.record(1, 1000, 'ok', 200);
    threads[1]!.serverTiming(1, response());
    const [a, b] = threads.map((t) => t.flush(true)[0]!);
    const merged = mergeSnapshots([a!, b!]);
    expect(merged.scenarios[0]!.stageTimes).toEqual({
      db: { sumMs: 4, count: 2 },
      total: { sumMs: 8, count: 2 },
    });
    expect(merged.scenarios[1]!.stageTimes).toBeUndefined();

    const agg = new Aggregator(['one', 'two'], 2);
    agg.add([a!]);
    agg.add([b!]);
    expect(agg.scenarioCounters[0]!.stageTimes).toEqual({
      db: { sumMs: 4, count: 2 },
      total: { sumMs: 8, count: 2 },
    });
    expect(agg.totalCounters.stageTimes?.total).toEqual({ sumMs: 8, count: 2 });
  });
});
