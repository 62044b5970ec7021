import { describe, expect, it } from 'vitest';
import type { Stage } from '../../../src/benchmarks/config/plan';
import { ArrivalClock, stagesDuration, targetAt, userWindows } from '../../../src/benchmarks/engine/stages';
import { planFrom } from '../helpers/runtime';

const STAGES: Stage[] = [
  { durationSeconds: 10, target: 20 },
  { durationSeconds: 20, target: 20 },
  { durationSeconds: 10, target: 5 },
  { durationSeconds: 10, target: 0 },
];

/** Users running at `t` according to each user's windows. */
function runningAt(stages: Stage[], peak: number, t: number): number {
  let n = 0;
  for (let id = 0; id < peak; id++) {
    if (userWindows(stages, id, stagesDuration(stages)).some(([a, b]) => a <= t && t < b)) n++;
  }
  return n;
}

describe('stages', () => {
  it('closed model: the users running follow the plan in every stage (counted every 0.1 s)', () => {
    for (let t = 0.05; t < 50; t += 0.1) {
      const planned = targetAt(STAGES, t);
      // A user runs while the planned count is above its id: ceil(planned) users.
      expect(runningAt(STAGES, 20, t), `t=${t.toFixed(2)}`).toBe(Math.ceil(planned));
    }
    // Per stage, the mean running users are within 5 % (or one user) of the plan's mean.
    let start = 0;
    for (const s of STAGES) {
      let sum = 0;
      let planned = 0;
      const n = 200;
      for (let i = 0; i < n; i++) {
        const t = start + ((i + 0.5) / n) * s.durationSeconds;
        sum += runningAt(STAGES, 20, t);
        planned += targetAt(STAGES, t);
      }
      expect(Math.abs(sum - planned) / n).toBeLessThanOrEqual(Math.max(1, (0.05 * planned) / n));
      start += s.durationSeconds;
    }
  });

  it('open model: the arrivals in each stage match the integral of the planned rate', () => {
    const rate: Stage[] = [
      { durationSeconds: 5, target: 100 },
      { durationSeconds: 10, target: 100 },
      { durationSeconds: 5, target: 300 },
      { durationSeconds: 5, target: 0 },
    ];
    const clock = new ArrivalClock(rate);
    const times: number[] = [];
    for (let k = 0; ; k++) {
      const t = clock.timeOf(k);
      if (!Number.isFinite(t) || t >= 25) break;
      times.push(t);
    }
    const expected = [250, 1000, 1000, 750];
    let start = 0;
    rate.forEach((s, i) => {
      const inStage = times.filter((t) => t >= start && t < start + s.durationSeconds).length;
      expect(Math.abs(inStage - expected[i]!)).toBeLessThanOrEqual(Math.max(1, 0.05 * expected[i]!));
      start += s.durationSeconds;
    });
    // And per second within the hold: exactly the rate.
    expect(times.filter((t) => t >= 7 && t < 8)).toHaveLength(100);
    // Shards: two clocks at half the rate, offset by half an arrival, together give the same count.
    const a = new ArrivalClock(rate, 2);
    const b = new ArrivalClock(rate, 2);
    let both = 0;
    for (const [clk, phase] of [
      [a, 0],
      [b, 0.5],
    ] as const) {
      for (let k = 0; clk.timeOf(k + phase) < 25; k++) both++;
    }
    expect(Math.abs(both - times.length)).toBeLessThanOrEqual(1);
  });

  it('derives the plan from users.stages and rate.stages, the run lasting as long as the stages', () => {
    const closed = planFrom(`target_url: http://127.0.0.1:1
auth: { mode: none }
users: { stages: [{ duration_seconds: 2, target: 4 }, { duration_seconds: 1, target: 0 }] }
targets: [{ type: endpoint, name: e, method: GET, path: /x }]
`);
    expect(closed.durationSeconds).toBe(3);
    expect(closed.users.peak).toBe(4);
    expect(closed.model).toEqual({
      kind: 'closed',
      stages: [
        { durationSeconds: 2, target: 4 },
        { durationSeconds: 1, target: 0 },
      ],
    });
    const open = planFrom(`target_url: http://127.0.0.1:1
auth: { mode: none }
users: { peak: 50 }
rate: { stages: [{ duration_seconds: 1, target: 10 }, { duration_seconds: 2, target: 30 }] }
targets: [{ type: endpoint, name: e, method: GET, path: /x }]
`);
    expect(open.durationSeconds).toBe(3);
    expect(open.model).toMatchObject({ kind: 'open', ratePerSecond: 30 });
  });
});
