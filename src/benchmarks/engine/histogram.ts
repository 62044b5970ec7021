import * as hdr from 'hdr-histogram-js';

/** A latency histogram in microseconds (hdr-histogram-js, mergeable with `add`). */
export type LatencyHistogram = hdr.Histogram;

/** Highest latency tracked: 10 minutes in microseconds; anything slower is clamped to it. */
const MAX_LATENCY_US = 600_000_000;

/**
 * A new histogram from 1 us to 10 min with 3 significant digits (0.1 % value precision) and 32-bit counts.
 * (The `packed` variant is smaller but costs milliseconds per merge: too slow for a load generator.)
 */
export function newHistogram(): LatencyHistogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: MAX_LATENCY_US,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 32,
  });
}

/** Records a latency, clamped into the trackable range. */
export function recordUs(h: LatencyHistogram, us: number): void {
  h.recordValue(Math.min(MAX_LATENCY_US, Math.max(1, Math.round(us))));
}

/** Compressed base64 form (HdrHistogram's V2 encoding), for worker messages and result files. */
export function encodeHistogram(h: LatencyHistogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

/** Decodes {@link encodeHistogram}'s output. */
export function decodeHistogram(s: string): LatencyHistogram {
  return hdr.decodeFromCompressedBase64(s, 32);
}

/** Percentiles and max in milliseconds (0 for an empty histogram). */
export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** The internals of hdr-histogram-js's JavaScript histograms that one pass over the counts needs. */
interface CountsView {
  countsArrayLength: number;
  maxValue: number;
  minNonZeroValue: number;
  totalCount: number;
  getCountAtIndex(i: number): number;
  valueFromIndex(i: number): number;
  highestEquivalentValue(v: number): number;
  medianEquivalentValue(v: number): number;
  countsArrayIndex(v: number): number;
  addToCountAtIndex(i: number, count: number): void;
  setTotalCount(n: number): void;
  updatedMaxValue(v: number): void;
  updateMinNonZeroValue(v: number): void;
}

/**
 * Adds `from` into `into` (histograms of {@link newHistogram}'s layout), as the library's `add` does, but
 * visiting only the counts up to `from`'s highest value: a second's latencies of a few milliseconds sit in
 * the first few thousand of the 21,504 counts, which the library's `add` walks in full (several times a
 * second in the live aggregation).
 */
export function mergeInto(into: LatencyHistogram, from: LatencyHistogram): void {
  const f = from as unknown as CountsView;
  const t = into as unknown as CountsView;
  const total = f.totalCount;
  if (total === 0) return;
  const top = Math.min(f.countsArrayIndex(f.maxValue), f.countsArrayLength - 1);
  for (let i = 0; i <= top; i++) {
    const c = f.getCountAtIndex(i);
    if (c !== 0) t.addToCountAtIndex(i, c);
  }
  t.setTotalCount(t.totalCount + total);
  t.updatedMaxValue(Math.max(t.maxValue, f.maxValue));
  t.updateMinNonZeroValue(Math.min(t.minNonZeroValue, f.minNonZeroValue));
}

/** The summary of no latencies at all. */
export function emptySummary(): LatencySummary {
  return { p50: 0, p95: 0, p99: 0, max: 0, mean: 0 };
}

/** The count at or below which a percentile lies (as the library computes it: rounded up, at least 1). */
function rankOf(percentile: number, total: number): number {
  const fp = (percentile / 100) * total;
  return Math.max(Math.ceil(fp - fp * Number.EPSILON), 1);
}

/**
 * Summarizes a histogram in milliseconds, in one pass over its counts (the library walks them once per
 * percentile and again for the mean: four passes, milliseconds a second for the live aggregation). The
 * values are the library's own: highest equivalent value at each percentile, mean of median equivalents.
 */
export function summarize(h: LatencyHistogram): LatencySummary {
  const total = h.totalCount;
  if (total === 0) return emptySummary();
  const v = h as unknown as CountsView;
  const ranks = [rankOf(50, total), rankOf(95, total), rankOf(99, total)];
  const at = [0, 0, 0];
  let next = 0;
  let seen = 0;
  let sum = 0;
  for (let i = 0; i < v.countsArrayLength && seen < total; i++) {
    const c = v.getCountAtIndex(i);
    if (c === 0) continue;
    seen += c;
    const value = v.valueFromIndex(i);
    sum += v.medianEquivalentValue(value) * c;
    while (next < 3 && seen >= ranks[next]!) at[next++] = v.highestEquivalentValue(value);
  }
  const ms = (us: number) => Math.round(us) / 1000;
  return { p50: ms(at[0]!), p95: ms(at[1]!), p99: ms(at[2]!), max: ms(h.maxValue), mean: ms(sum / total) };
}
