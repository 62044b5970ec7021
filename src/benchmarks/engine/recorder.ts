import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { CheckFailure } from '../checks/judge';
import { encodeHistogram, type LatencyHistogram, newHistogram, recordUs } from './histogram';
import type { HttpResponse } from './http-message';
import type { Outcome } from './outcome';
import { addServerTiming, type StageTimes } from './server-timing';

/** Counters of one scenario over one second, with its latency histogram encoded. */
export interface ScenarioInterval {
  count: number;
  ok: number;
  failed: number;
  throttled: number;
  errors: number;
  /** Response status -> count; `error:<code>` for requests without a response. */
  statuses: Record<string, number>;
  /** Encoded latency histogram (microseconds); empty string when no response was timed. */
  histogram: string;
  /**
   * The histogram itself instead, when the snapshot stays in the thread that recorded it (no encoding
   * and decoding every second); never sent to another thread or process.
   */
  latency?: LatencyHistogram;
  /** Failed checks by name: how many, and the first reason seen. Absent when none failed. */
  checks?: Record<string, CheckCount>;
  /** `server_timing`: the server's stages (`Server-Timing`) summed over the responses. Absent when none. */
  stageTimes?: StageTimes;
}

/** Failures of one check. */
export interface CheckCount {
  failed: number;
  /** The first reason seen (reasons of one check differ only in the value found). */
  reason: string;
}

/** What one load generator (thread) saw during one second of the run. */
export interface IntervalSnapshot {
  /** Seconds since the run's start (0-based). */
  second: number;
  scenarios: ScenarioInterval[];
  /** Event-loop delay of the generator thread over the second, p99 and max, in ms. */
  lagP99Ms: number;
  lagMaxMs: number;
  /** Open model: arrivals due in this second, and those that found no idle user. */
  scheduled: number;
  dropped: number;
  /**
   * The most users running at once during the second (a run's last, partial second counts the users
   * that were still running in it, not the none left once the run is over).
   */
  activeUsers: number;
}

/** Resolution of Node's event-loop delay monitor, in ms. */
const LAG_RESOLUTION_MS = 20;

/**
 * The delay in a value of Node's event-loop delay monitor: it records the time between two runs of its
 * timer, which is the resolution when the loop is idle, so the delay is what exceeds the resolution.
 */
export function monitoredDelayMs(recordedNs: number): number {
  return Math.max(0, recordedNs / 1e6 - LAG_RESOLUTION_MS);
}

interface Bucket {
  /** Per series: counters, and the latencies (us) of its responses, recorded into a histogram on emission. */
  scenarios: Array<{ c: Omit<ScenarioInterval, 'histogram'>; latencies: number[] }>;
  scheduled: number;
  dropped: number;
}

/**
 * Collects one thread's measurements into per-second buckets (by completion time) and emits each second,
 * once it is over, as an {@link IntervalSnapshot}. Latency is in microseconds; the executor decides where it
 * starts (the intended arrival time in the open model, which avoids coordinated omission).
 */
export class Recorder {
  private readonly buckets = new Map<number, Bucket>();
  /** Histograms of seconds emitted encoded, reset for reuse: emission allocates none. */
  private readonly spare: LatencyHistogram[] = [];
  /**
   * Event-loop delay from Node's monitor (20 ms resolution: fine enough against a 100 ms limit), unless
   * the executor reports it itself with {@link Recorder.lagSample}: an executor that wakes on timers anyway
   * (the open model) measures how late each wake-up came, which costs no wake-up of its own.
   */
  private readonly lag: IntervalHistogram | undefined;
  /** Lateness of the executor's wake-ups this second, in ms (when it reports them). */
  private readonly lagSamples: number[] = [];
  private next = 0;
  /** The bucket asked for last, and its second (-1: none): most records of a second land in one. */
  private lastKey = -1;
  private last: Bucket | undefined;
  private running = 0;
  /** The most users running since the last emitted second. */
  private runningPeak = 0;

  /** Users started and still running (set by the executor as they start and stop). */
  get activeUsers(): number {
    return this.running;
  }
  set activeUsers(n: number) {
    this.running = n;
    if (n > this.runningPeak) this.runningPeak = n;
  }

  constructor(
    private readonly slotCount: number,
    private readonly startAt: number,
    private readonly now: () => number = Date.now,
    lagFromExecutor = false,
    /** False when the snapshots stay in this thread: histograms are handed over as objects. */
    private readonly encode = true,
    /** `server_timing`: the callers pass responses to {@link Recorder.serverTiming}. */
    readonly timesServer = false,
  ) {
    if (!lagFromExecutor) {
      this.lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
      this.lag.enable();
    }
  }

  /** One wake-up of the executor came `lateMs` after it was due (see the constructor's `lagFromExecutor`). */
  lagSample(lateMs: number): void {
    this.lagSamples.push(lateMs);
  }

  /**
   * Records a response of series `slot` (a scenario or a flow step), with the checks it failed. The
   * latency is kept as a number and recorded into the second's histogram when the second is emitted: one
   * loop a second instead of the histogram library's chain of calls on every response. At moderate rates
   * the generator is woken for each response, and every function run then costs its cache misses.
   */
  record(
    slot: number,
    latencyUs: number,
    outcome: Exclude<Outcome, 'error'>,
    status: number,
    failures?: readonly CheckFailure[],
  ): void {
    const s = this.slot(slot);
    s.c.count++;
    s.c[outcome]++;
    s.c.statuses[status] = (s.c.statuses[status] ?? 0) + 1;
    s.latencies.push(latencyUs);
    if (failures && failures.length > 0) addFailures(s.c, failures);
  }

  /**
   * Adds the stages of a response's `Server-Timing` to series `slot` (only when the plan asks for them:
   * reading a header parses the whole response head).
   */
  serverTiming(slot: number, res: HttpResponse): void {
    const header = res.headers['server-timing'];
    if (header === undefined) return;
    const c = this.slot(slot).c;
    c.stageTimes ??= {};
    addServerTiming(c.stageTimes, header);
  }

  /** Records a request that got no response (`code`: undici or harness error code). */
  error(slot: number, code: string, failures?: readonly CheckFailure[]): void {
    const s = this.slot(slot);
    s.c.count++;
    s.c.errors++;
    const key = `error:${code}`;
    s.c.statuses[key] = (s.c.statuses[key] ?? 0) + 1;
    if (failures && failures.length > 0) addFailures(s.c, failures);
  }

  /** Open model: one arrival was due (and `dropped` when no user was idle). */
  arrival(dropped: boolean): void {
    const b = this.bucket(this.second());
    b.scheduled++;
    if (dropped) b.dropped++;
  }

  /** Emits every second that is over (all of them when `final`), in order, without gaps. */
  flush(final = false): IntervalSnapshot[] {
    const upTo = final ? Math.max(this.next, ...this.buckets.keys()) + 1 : this.second();
    const out: IntervalSnapshot[] = [];
    const [lagP99Ms, lagMaxMs] = this.lagOfInterval();
    for (; this.next < upTo; this.next++) {
      const b = this.buckets.get(this.next);
      this.buckets.delete(this.next);
      out.push({
        second: this.next,
        scenarios: Array.from({ length: this.slotCount }, (_, i) => {
          const s = b?.scenarios[i];
          if (!s) return { count: 0, ok: 0, failed: 0, throttled: 0, errors: 0, statuses: {}, histogram: '' };
          const h = s.latencies.length > 0 ? this.histogramOf(s.latencies) : undefined;
          if (!this.encode) return h ? { ...s.c, histogram: '', latency: h } : { ...s.c, histogram: '' };
          const histogram = h ? encodeHistogram(h) : '';
          if (h) {
            h.reset();
            this.spare.push(h);
          }
          return { ...s.c, histogram };
        }),
        lagP99Ms: Number.isFinite(lagP99Ms) ? lagP99Ms : 0,
        lagMaxMs: Number.isFinite(lagMaxMs) ? lagMaxMs : 0,
        scheduled: b?.scheduled ?? 0,
        dropped: b?.dropped ?? 0,
        activeUsers: this.runningPeak,
      });
    }
    this.runningPeak = this.running;
    // The buckets emitted are gone.
    if (this.lastKey < this.next) {
      this.lastKey = -1;
      this.last = undefined;
    }
    return out;
  }

  /** Stops the event-loop monitor. */
  close(): void {
    this.lag?.disable();
  }

  /** p99 and max event-loop delay since the last flush, in ms; resets them. */
  private lagOfInterval(): [number, number] {
    if (this.lag) {
      const out: [number, number] = [
        monitoredDelayMs(this.lag.percentile(99)),
        monitoredDelayMs(this.lag.max),
      ];
      this.lag.reset();
      return out;
    }
    const samples = this.lagSamples.sort((a, b) => a - b);
    const n = samples.length;
    const out: [number, number] = n
      ? [samples[Math.min(n - 1, Math.ceil(0.99 * n) - 1)]!, samples[n - 1]!]
      : [0, 0];
    samples.length = 0;
    return out;
  }

  private second(): number {
    return Math.max(0, Math.floor((this.now() - this.startAt) / 1000));
  }

  private bucket(second: number): Bucket {
    // A request finishing after its second was emitted lands in the current one (never lost).
    const key = Math.max(second, this.next);
    if (key === this.lastKey) return this.last!;
    let b = this.buckets.get(key);
    if (!b) {
      b = { scenarios: [], scheduled: 0, dropped: 0 };
      this.buckets.set(key, b);
    }
    this.lastKey = key;
    this.last = b;
    return b;
  }

  private slot(index: number) {
    const b = this.bucket(this.second());
    let s = b.scenarios[index];
    if (!s) {
      s = { c: { count: 0, ok: 0, failed: 0, throttled: 0, errors: 0, statuses: {} }, latencies: [] };
      b.scenarios[index] = s;
    }
    return s;
  }

  /** A histogram of `latencies` (us): a spare one when there is one. */
  private histogramOf(latencies: readonly number[]): LatencyHistogram {
    const h = this.spare.pop() ?? newHistogram();
    for (const us of latencies) recordUs(h, us);
    return h;
  }
}

function addFailures(c: Omit<ScenarioInterval, 'histogram'>, failures: readonly CheckFailure[]): void {
  c.checks ??= {};
  for (const f of failures) {
    const entry = c.checks[f.check];
    if (entry) entry.failed++;
    else c.checks[f.check] = { failed: 1, reason: f.reason };
  }
}
