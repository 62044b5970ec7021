import {
  decodeHistogram,
  emptySummary,
  type LatencyHistogram,
  type LatencySummary,
  mergeInto,
  newHistogram,
  summarize,
} from '../engine/histogram';
import type { CheckCount, IntervalSnapshot, ScenarioInterval } from '../engine/recorder';
import { mergeStageTimes, type StageTimes } from '../engine/server-timing';

/** Request counters of a scenario or of the whole run. */
export interface Counters {
  count: number;
  ok: number;
  failed: number;
  throttled: number;
  errors: number;
  statuses: Record<string, number>;
  /** Failed checks by name, with the first reason seen (absent when every check passed). */
  checks?: Record<string, CheckCount>;
  /** `server_timing`: the server's stages summed over the responses (absent when it sent none). */
  stageTimes?: StageTimes;
}

/** One second of the run: total and per scenario. */
export interface TimelinePoint {
  /** Seconds since start. */
  t: number;
  rps: number;
  latency: LatencySummary;
  /** Failures plus requests without a response. */
  errors: number;
  throttled: number;
  scenarios: Record<string, { rps: number; latency: LatencySummary; errors: number; throttled: number }>;
  /** Worst generator thread's event-loop delay p99, ms. */
  lagMs: number;
  users: number;
  scheduled: number;
  dropped: number;
}

const emptyCounters = (): Counters => ({ count: 0, ok: 0, failed: 0, throttled: 0, errors: 0, statuses: {} });

function addCounters(into: Counters, from: Omit<ScenarioInterval, 'histogram'>): void {
  into.count += from.count;
  into.ok += from.ok;
  into.failed += from.failed;
  into.throttled += from.throttled;
  into.errors += from.errors;
  for (const [k, v] of Object.entries(from.statuses)) into.statuses[k] = (into.statuses[k] ?? 0) + v;
  if (from.checks) {
    into.checks ??= {};
    for (const [k, v] of Object.entries(from.checks)) {
      const c = into.checks[k];
      if (c) c.failed += v.failed;
      else into.checks[k] = { ...v };
    }
  }
  if (from.stageTimes) into.stageTimes = mergeStageTimes(into.stageTimes, from.stageTimes);
}

/**
 * Merges the snapshots of every generator thread: a second is final once each of the `sources` has sent
 * it; its histograms are then added into the per-second point and into the cumulative per-series and
 * total histograms (HDR histograms merge exactly, so percentiles over threads are true percentiles).
 * Series are the plan's slots: the first `totalSlots` (the scenarios) make the total and the timeline;
 * the others (flow steps) are kept cumulatively only.
 */
export class Aggregator {
  readonly timeline: TimelinePoint[] = [];
  readonly scenarioCounters: Counters[];
  readonly scenarioHistograms: LatencyHistogram[];
  readonly totalCounters = emptyCounters();
  /** With one scenario, the scenario's own histogram: the total is that scenario (see `finalize`). */
  readonly totalHistogram: LatencyHistogram;
  private readonly pending = new Map<number, IntervalSnapshot[]>();
  /**
   * Scratch histograms of the second being finalized, reset and reused (allocating and merging packed
   * histograms every second would stall the event loop for milliseconds and skew the measurements): the
   * total of the second, and a series' second when several sources sent it.
   */
  private readonly secondTotal = newHistogram();
  private readonly secondScenario = newHistogram();

  constructor(
    readonly labels: string[],
    private sources: number,
    private readonly totalSlots = labels.length,
  ) {
    this.scenarioCounters = labels.map(emptyCounters);
    this.scenarioHistograms = labels.map(() => newHistogram());
    this.totalHistogram = totalSlots === 1 ? this.scenarioHistograms[0]! : newHistogram();
  }

  /** Adds snapshots from one source; returns the points that became final. */
  add(snapshots: IntervalSnapshot[]): TimelinePoint[] {
    const out: TimelinePoint[] = [];
    for (const s of snapshots) {
      const list = this.pending.get(s.second) ?? [];
      list.push(s);
      this.pending.set(s.second, list);
      if (list.length >= this.sources) out.push(this.finalize(s.second));
    }
    return out;
  }

  /**
   * One source is gone for good (a lost worker): seconds no longer wait for it; returns the points that
   * thereby became final.
   */
  dropSource(): TimelinePoint[] {
    this.sources = Math.max(1, this.sources - 1);
    const ready = [...this.pending].filter(([, list]) => list.length >= this.sources).map(([s]) => s);
    return ready.sort((a, b) => a - b).map((s) => this.finalize(s));
  }

  /** Finalizes whatever is left (a source that stopped early), in time order. */
  finish(): void {
    for (const second of [...this.pending.keys()].sort((a, b) => a - b)) this.finalize(second);
    this.timeline.sort((a, b) => a.t - b.t);
  }

  private finalize(second: number): TimelinePoint {
    const list = this.pending.get(second) ?? [];
    this.pending.delete(second);
    // With one scenario the second's total is that scenario's second: nothing to merge or summarize twice.
    const single = this.totalSlots === 1;
    const totalH = this.secondTotal;
    if (!single) totalH.reset();
    const total = emptyCounters();
    const point: TimelinePoint = {
      t: second,
      rps: 0,
      latency: emptySummary(),
      errors: 0,
      throttled: 0,
      scenarios: {},
      lagMs: Math.max(0, ...list.map((s) => s.lagP99Ms)),
      users: list.reduce((n, s) => n + s.activeUsers, 0),
      scheduled: list.reduce((n, s) => n + s.scheduled, 0),
      dropped: list.reduce((n, s) => n + s.dropped, 0),
    };
    this.labels.forEach((label, i) => {
      const c = emptyCounters();
      // The series' histogram of this second: a single source's own (no copy), or the sources' merged.
      let h: LatencyHistogram | undefined;
      for (const snap of list) {
        const sc = snap.scenarios[i];
        if (!sc) continue;
        addCounters(c, sc);
        const part = sc.latency ?? (sc.histogram ? decodeHistogram(sc.histogram) : undefined);
        if (!part || part.totalCount === 0) continue;
        if (h === undefined) h = part;
        else {
          if (h !== this.secondScenario) {
            this.secondScenario.reset();
            mergeInto(this.secondScenario, h);
            h = this.secondScenario;
          }
          mergeInto(h, part);
        }
      }
      addCounters(this.scenarioCounters[i]!, c);
      if (h) mergeInto(this.scenarioHistograms[i]!, h);
      if (i >= this.totalSlots) return;
      addCounters(total, c);
      const latency = h ? summarize(h) : emptySummary();
      if (single) point.latency = { ...latency };
      else if (h) mergeInto(totalH, h);
      point.scenarios[label] = { rps: c.count, latency, errors: c.failed + c.errors, throttled: c.throttled };
    });
    addCounters(this.totalCounters, total);
    if (!single) {
      mergeInto(this.totalHistogram, totalH);
      point.latency = summarize(totalH);
    }
    point.rps = total.count;
    point.errors = total.failed + total.errors;
    point.throttled = total.throttled;
    this.timeline.push(point);
    return point;
  }
}
