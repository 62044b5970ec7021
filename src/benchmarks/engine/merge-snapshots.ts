import { decodeHistogram, encodeHistogram, mergeInto, newHistogram } from './histogram';
import type { IntervalSnapshot, ScenarioInterval } from './recorder';
import { mergeStageTimes } from './server-timing';

/**
 * Merges the per-second snapshots of several generator threads into one stream, as if one generator had
 * recorded them all: a second is emitted once every thread has sent it (or at `rest`), with counters
 * summed, latency histograms added (HDR histograms merge exactly), the worst event-loop delay, and the
 * users and arrivals summed. A worker process running several threads sends this one stream.
 */
export class SnapshotMerger {
  private readonly pending = new Map<number, IntervalSnapshot[]>();

  constructor(private readonly sources: number) {}

  /** Adds one thread's snapshots; returns the seconds that every thread has now sent, merged, in order. */
  add(snapshots: IntervalSnapshot[]): IntervalSnapshot[] {
    const ready: number[] = [];
    for (const s of snapshots) {
      const list = this.pending.get(s.second) ?? [];
      list.push(s);
      this.pending.set(s.second, list);
      if (list.length >= this.sources) ready.push(s.second);
    }
    return ready.sort((a, b) => a - b).map((second) => this.take(second));
  }

  /** Whatever is left (threads that stopped early), merged, in time order. */
  rest(): IntervalSnapshot[] {
    return [...this.pending.keys()].sort((a, b) => a - b).map((second) => this.take(second));
  }

  private take(second: number): IntervalSnapshot {
    const list = this.pending.get(second)!;
    this.pending.delete(second);
    return mergeSnapshots(list);
  }
}

/** One snapshot of the same second from several threads. */
export function mergeSnapshots(list: IntervalSnapshot[]): IntervalSnapshot {
  const slots = Math.max(...list.map((s) => s.scenarios.length));
  return {
    second: list[0]!.second,
    scenarios: Array.from({ length: slots }, (_, i) =>
      mergeIntervals(list.map((s) => s.scenarios[i]).filter((x) => x !== undefined)),
    ),
    lagP99Ms: Math.max(...list.map((s) => s.lagP99Ms)),
    lagMaxMs: Math.max(...list.map((s) => s.lagMaxMs)),
    scheduled: list.reduce((n, s) => n + s.scheduled, 0),
    dropped: list.reduce((n, s) => n + s.dropped, 0),
    activeUsers: list.reduce((n, s) => n + s.activeUsers, 0),
  };
}

function mergeIntervals(list: ScenarioInterval[]): ScenarioInterval {
  const out: ScenarioInterval = {
    count: 0,
    ok: 0,
    failed: 0,
    throttled: 0,
    errors: 0,
    statuses: {},
    histogram: '',
  };
  const h = newHistogram();
  for (const s of list) {
    out.count += s.count;
    out.ok += s.ok;
    out.failed += s.failed;
    out.throttled += s.throttled;
    out.errors += s.errors;
    for (const [k, v] of Object.entries(s.statuses)) out.statuses[k] = (out.statuses[k] ?? 0) + v;
    if (s.checks) {
      out.checks ??= {};
      for (const [k, v] of Object.entries(s.checks)) {
        const c = out.checks[k];
        if (c) c.failed += v.failed;
        else out.checks[k] = { ...v };
      }
    }
    if (s.stageTimes) out.stageTimes = mergeStageTimes(out.stageTimes, s.stageTimes);
    if (s.latency) mergeInto(h, s.latency);
    else if (s.histogram) mergeInto(h, decodeHistogram(s.histogram));
  }
  if (h.totalCount > 0) out.histogram = encodeHistogram(h);
  return out;
}
