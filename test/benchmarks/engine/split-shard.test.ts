import { describe, expect, it } from 'vitest';
import { DataFeeder } from '../../../src/benchmarks/data/feeder';
import { shardUsers, splitShard } from '../../../src/benchmarks/engine/executor';
import { ArrivalClock } from '../../../src/benchmarks/engine/stages';

/** The times (us) of every arrival a shard sends over one stage ramping to `rate` (as the open model walks them). */
function arrivals(shard: { index: number; count: number }, seconds: number, rate: number): number[] {
  const clock = new ArrivalClock([{ durationSeconds: seconds, target: rate }], shard.count);
  const out: number[] = [];
  for (let k = 0; ; k++) {
    const t = clock.timeOf(k + shard.index / shard.count);
    if (t >= seconds) return out;
    out.push(Math.round(t * 1e6));
  }
}

describe('splitting a shard between threads', () => {
  it('gives the threads exactly the users, arrivals and data rows of the shard, none twice', () => {
    const shard = { index: 1, count: 3 };
    const parts = splitShard(shard, 2);
    expect(parts).toEqual([
      { index: 1, count: 6 },
      { index: 4, count: 6 },
    ]);
    const users = parts.flatMap((p) => shardUsers(50, p)).sort((a, b) => a - b);
    expect(users).toEqual(shardUsers(50, shard));
    // A ramp from 0 to 90/s over 2 s: 90 arrivals, a third of them the shard's.
    const times = parts.flatMap((p) => arrivals(p, 2, 90)).sort((a, b) => a - b);
    expect(times).toEqual(arrivals(shard, 2, 90));
    expect(times).toHaveLength(30);
    const rows = Array.from({ length: 20 }, (_, i) => ({ n: String(i) }));
    const plan = { file: 'rows.csv', mode: 'unique' as const, columns: ['n'], rows };
    const taken = (s: { index: number; count: number }) => {
      const feeder = new DataFeeder(plan, s);
      const out: string[] = [];
      for (let row = feeder.next(); row; row = feeder.next()) out.push(String(row.n));
      return out;
    };
    expect(parts.flatMap(taken).sort()).toEqual(taken(shard).sort());
  });
});
