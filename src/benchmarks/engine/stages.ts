import type { Stage } from '../config/plan';

/**
 * Stages as in k6's ramping executors: each stage moves the target (users, or arrivals per second)
 * linearly from the previous stage's target (0 before the first) to its own over its duration. Pure
 * functions of time, so the plan they follow can be checked by counting, without a clock.
 */

/** Seconds the stages last. */
export function stagesDuration(stages: readonly Stage[]): number {
  return stages.reduce((s, st) => s + st.durationSeconds, 0);
}

/**
 * The stages of the older shorthand: a linear ramp from 0 to `peak` over `rampSeconds`, then `peak` held
 * until `durationSeconds`.
 */
export function shorthandStages(peak: number, rampSeconds: number, durationSeconds: number): Stage[] {
  const ramp = Math.min(rampSeconds, durationSeconds);
  const stages: Stage[] = [];
  if (ramp > 0) stages.push({ durationSeconds: ramp, target: (peak * ramp) / Math.max(rampSeconds, 1e-9) });
  if (durationSeconds > ramp) stages.push({ durationSeconds: durationSeconds - ramp, target: peak });
  // A ramp longer than the run ends below the peak; without a ramp the target holds from the start.
  if (ramp === 0) stages.unshift({ durationSeconds: 0, target: peak });
  return stages;
}

/** The planned target at `t` seconds (the last target after the end). */
export function targetAt(stages: readonly Stage[], t: number): number {
  let start = 0;
  let from = 0;
  for (const s of stages) {
    if (t < start + s.durationSeconds) return from + ((s.target - from) * (t - start)) / s.durationSeconds;
    start += s.durationSeconds;
    from = s.target;
  }
  return from;
}

/**
 * When user `id` (0-based) runs, as [start, end) windows in seconds: a user runs while the target is
 * above its id, so users start in id order as the target rises and the highest ids stop first as it
 * falls. Windows end at `endS` at the latest.
 */
export function userWindows(stages: readonly Stage[], id: number, endS: number): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  let start = 0;
  let from = 0;
  let activeSince: number | undefined;
  for (const s of stages) {
    const d = s.durationSeconds;
    const cross = (level: number) => start + ((level - from) / (s.target - from)) * d;
    if (d === 0) {
      // A step: the target jumps.
      if (activeSince === undefined && s.target > id) activeSince = start;
      else if (activeSince !== undefined && s.target <= id) {
        windows.push([activeSince, start]);
        activeSince = undefined;
      }
    } else if (activeSince === undefined && from <= id && s.target > id) {
      activeSince = cross(id);
    } else if (activeSince !== undefined && s.target <= id && from > id) {
      windows.push([activeSince, cross(id)]);
      activeSince = undefined;
    }
    start += d;
    from = s.target;
  }
  if (activeSince !== undefined) windows.push([activeSince, Math.max(endS, activeSince)]);
  return windows.map(([a, b]): [number, number] => [a, Math.min(b, endS)]).filter(([a, b]) => b > a);
}

/**
 * Arrival times of the open model: the `k`-th arrival (k may be fractional, for a shard's phase) comes
 * when the integral of the rate reaches `k`. Each stage's arrivals are `a t + (b - a) t^2 / 2d`, inverted
 * exactly; times are asked in increasing order, so a cursor keeps each call O(1).
 */
export class ArrivalClock {
  /** Arrivals before each stage. */
  private readonly before: number[] = [];
  private readonly starts: number[] = [];
  private cursor = 0;

  /** `scale` divides every target (a shard's share of the rate). */
  constructor(
    private readonly stages: readonly Stage[],
    private readonly scale = 1,
  ) {
    let n = 0;
    let t = 0;
    let from = 0;
    for (const s of stages) {
      this.before.push(n);
      this.starts.push(t);
      n += ((from + s.target) / 2 / scale) * s.durationSeconds;
      t += s.durationSeconds;
      from = s.target;
    }
    this.before.push(n);
    this.starts.push(t);
  }

  /** Arrivals planned over the whole stages. */
  get total(): number {
    return this.before[this.stages.length]!;
  }

  /** Time in seconds of arrival `k` (Infinity past the last stage). */
  timeOf(k: number): number {
    const last = this.stages.length;
    while (this.cursor < last && this.before[this.cursor + 1]! <= k) this.cursor++;
    while (this.cursor > 0 && this.before[this.cursor]! > k) this.cursor--;
    if (this.cursor >= last) return Number.POSITIVE_INFINITY;
    const i = this.cursor;
    const s = this.stages[i]!;
    const a = (i === 0 ? 0 : this.stages[i - 1]!.target) / this.scale;
    const slope = (s.target / this.scale - a) / s.durationSeconds;
    const rest = k - this.before[i]!;
    // Root of slope/2 t^2 + a t - rest = 0, in the form that stays exact when slope is near 0.
    const root = Math.sqrt(Math.max(0, a * a + 2 * slope * rest));
    const dt = a + root > 0 ? (2 * rest) / (a + root) : 0;
    return this.starts[i]! + dt;
  }
}
