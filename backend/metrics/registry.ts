/**
 * Where a process's metrics are gathered for `GET /metrics`: capabilities keep their own counters (cheap to
 * bump on a hot path) and register a collector that turns them into metric families when scraped. A
 * collector that fails is left out of that scrape and named in the log once, so one broken source never
 * hides the others.
 */
import type { HistogramSample, Labels, MetricFamily } from './open-metrics';

/** Produces metric families when `/metrics` is read (may query a database). */
export type MetricsCollector = () => readonly MetricFamily[] | Promise<readonly MetricFamily[]>;

/** The collectors of one process. */
export class MetricsRegistry {
  readonly #collectors = new Map<string, MetricsCollector>();
  readonly #failed = new Set<string>();

  /** Adds (or replaces) the collector named `source`. */
  register(source: string, collector: MetricsCollector): void {
    this.#collectors.set(source, collector);
  }

  /** Every collector's families, in registration order; `log` hears of a source's first failure. */
  async collect(log?: (line: string) => void): Promise<MetricFamily[]> {
    const families: MetricFamily[] = [];
    for (const [source, collector] of this.#collectors) {
      try {
        families.push(...(await collector()));
        this.#failed.delete(source);
      } catch (err) {
        if (!this.#failed.has(source)) {
          this.#failed.add(source);
          log?.(`metrics: the ${source} source failed and is left out: ${(err as Error).message}`);
        }
      }
    }
    return families;
  }
}

/**
 * The map key of a label set: names and values joined by control characters no label carries. Cheaper than
 * `JSON.stringify` on the hot path (no escaping pass), and as exact for the fixed label names each call site
 * uses.
 */
function labelKey(labels: Labels): string {
  let key = '';
  for (const name in labels) key += `${name}\u0000${labels[name]}\u0001`;
  return key;
}

/** Counts by label set (e.g. requests by method and status class). */
export class LabelledCounter {
  readonly #counts = new Map<string, { labels: Labels; value: number }>();

  /** Adds `by` (default 1) to the count of `labels`. */
  add(labels: Labels, by = 1): void {
    const key = labelKey(labels);
    const entry = this.#counts.get(key);
    if (entry) entry.value += by;
    else this.#counts.set(key, { labels, value: by });
  }

  /** The samples so far. */
  samples(): { labels: Labels; value: number }[] {
    return [...this.#counts.values()].map((e) => ({ labels: e.labels, value: e.value }));
  }
}

/** A histogram of durations in seconds, by label set, over fixed bucket bounds. */
export class DurationHistogram {
  readonly #series = new Map<string, { labels: Labels; buckets: number[]; count: number; sum: number }>();

  /** @param bounds upper bounds in seconds, ascending. */
  constructor(readonly bounds: readonly number[]) {}

  /** Records one duration (seconds). */
  observe(labels: Labels, seconds: number): void {
    const key = labelKey(labels);
    let series = this.#series.get(key);
    if (!series) {
      series = { labels, buckets: this.bounds.map(() => 0), count: 0, sum: 0 };
      this.#series.set(key, series);
    }
    // Only the first bucket that holds the value is bumped here; the samples are made cumulative when read.
    const i = this.bounds.findIndex((b) => seconds <= b);
    if (i >= 0) series.buckets[i]! += 1;
    series.count += 1;
    series.sum += seconds;
  }

  /** The samples so far, with cumulative bucket counts. */
  samples(): HistogramSample[] {
    return [...this.#series.values()].map((s) => {
      let running = 0;
      return {
        labels: s.labels,
        buckets: s.buckets.map((n) => {
          running += n;
          return running;
        }),
        count: s.count,
        sum: s.sum,
      };
    });
  }
}

/** Latency bounds in seconds for request and statement durations (finer at the low end). */
export const LATENCY_BOUNDS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
