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

/** Summarizes a histogram in milliseconds. */
export function summarize(h: LatencyHistogram): LatencySummary {
  if (h.totalCount === 0) return { p50: 0, p95: 0, p99: 0, max: 0, mean: 0 };
  const ms = (us: number) => Math.round(us) / 1000;
  return {
    p50: ms(h.getValueAtPercentile(50)),
    p95: ms(h.getValueAtPercentile(95)),
    p99: ms(h.getValueAtPercentile(99)),
    max: ms(h.maxValue),
    mean: ms(h.mean),
  };
}
