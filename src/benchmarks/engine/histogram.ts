import { deflateSync, inflateSync } from 'node:zlib';
import type Histogram from 'hdr-histogram-js/dist/Histogram';
// The class itself, not the package's index: the index also loads the WebAssembly build, pako and the
// log writer (which builds an Intl.NumberFormat when loaded, about 10 ms of start-up), none of which a
// run uses. The compressed form is written here on node:zlib, as the library does in Node.
import Int32Module from 'hdr-histogram-js/dist/Int32Histogram';

/**
 * The class: a CommonJS module's `exports.default`, which Node's ES module interop hands over as the
 * `default` of `module.exports` (a bundler honouring `__esModule` hands over the class itself).
 */
const Int32Histogram = (Int32Module as unknown as { default?: typeof Int32Module }).default ?? Int32Module;

/** A latency histogram in microseconds (hdr-histogram-js, mergeable with `add`). */
export type LatencyHistogram = Histogram;

/** Highest latency tracked: 10 minutes in microseconds; anything slower is clamped to it. */
const MAX_LATENCY_US = 600_000_000;
/** Lowest value told apart, and the significant digits kept (0.1 % value precision). */
const LOWEST_US = 1;
const SIGNIFICANT_DIGITS = 3;

/**
 * A new histogram from 1 us to 10 min with 3 significant digits (0.1 % value precision) and 32-bit counts,
 * growing its range when a larger one is added into it (as the library's `build` makes them).
 * (The `packed` variant is smaller but costs milliseconds per merge: too slow for a load generator.)
 */
export function newHistogram(): LatencyHistogram {
  const h = new Int32Histogram(LOWEST_US, MAX_LATENCY_US, SIGNIFICANT_DIGITS);
  h.autoResize = true;
  return h;
}

/** Records a latency, clamped into the trackable range. */
export function recordUs(h: LatencyHistogram, us: number): void {
  h.recordValue(Math.min(MAX_LATENCY_US, Math.max(1, Math.round(us))));
}

/**
 * HdrHistogram's V2 encoding cookies (word size 9, run-length zeros): uncompressed, and compressed
 * (the cookie, the deflated length, then the zlib stream of the uncompressed form).
 */
const V2_COOKIE = 0x1c849303 | 0x10;
const V2_COMPRESSED_COOKIE = 0x1c849304 | 0x10;
/** Bytes of the V2 header: cookie, payload length, index offset, digits, lowest, highest, ratio. */
const V2_HEADER_BYTES = 40;

/** The internals of hdr-histogram-js's JavaScript histograms that the codec and the merge read. */
interface CountsView {
  countsArrayLength: number;
  maxValue: number;
  minNonZeroValue: number;
  totalCount: number;
  numberOfSignificantValueDigits: number;
  lowestDiscernibleValue: number;
  highestTrackableValue: number;
  getCountAtIndex(i: number): number;
  setCountAtIndex(i: number, count: number): void;
  valueFromIndex(i: number): number;
  highestEquivalentValue(v: number): number;
  medianEquivalentValue(v: number): number;
  countsArrayIndex(v: number): number;
  addToCountAtIndex(i: number, count: number): void;
  setTotalCount(n: number): void;
  updatedMaxValue(v: number): void;
  updateMinNonZeroValue(v: number): void;
  establishInternalTackingValues(lengthToCover: number): void;
}

/** Writes `v` (a count, or minus a run of zero counts) ZigZag LEB128 at `at`; returns the next offset. */
function putZigZag(out: Buffer, at: number, v: number): number {
  // ZigZag on doubles: counts reach 2^32 - 1, past what 32-bit operators keep.
  let z = v >= 0 ? v * 2 : -v * 2 - 1;
  while (z >= 0x80) {
    out[at++] = (z % 0x80) | 0x80;
    z = Math.floor(z / 0x80);
  }
  out[at++] = z;
  return at;
}

/** Reads a ZigZag LEB128 value at `at.i` of `buf`, moving `at.i` past it. */
function getZigZag(buf: Buffer, at: { i: number }): number {
  let z = 0;
  let scale = 1;
  for (let n = 0; n < 9; n++) {
    const b = buf[at.i++];
    if (b === undefined) throw new Error('truncated histogram');
    // The ninth byte carries eight bits (LEB128-64b9B).
    if (n === 8) {
      z += b * scale;
      break;
    }
    z += (b & 0x7f) * scale;
    if (b < 0x80) break;
    scale *= 0x80;
  }
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

/**
 * Compressed base64 form (HdrHistogram's V2 compressed encoding, as `encodeIntoCompressedBase64` of
 * hdr-histogram-js writes it), for worker messages and result files.
 */
export function encodeHistogram(h: LatencyHistogram): string {
  const v = h as unknown as CountsView;
  const limit = v.countsArrayIndex(v.maxValue) + 1;
  // At most 9 bytes per count (fewer: zero runs take one word).
  const raw = Buffer.allocUnsafe(V2_HEADER_BYTES + 9 * limit);
  raw.writeInt32BE(V2_COOKIE | 0, 0);
  raw.writeInt32BE(1, 8);
  raw.writeInt32BE(v.numberOfSignificantValueDigits, 12);
  raw.writeBigInt64BE(BigInt(v.lowestDiscernibleValue), 16);
  raw.writeBigInt64BE(BigInt(v.highestTrackableValue), 24);
  raw.writeBigInt64BE(1n, 32);
  let at = V2_HEADER_BYTES;
  for (let i = 0; i < limit; ) {
    const count = v.getCountAtIndex(i++);
    if (count !== 0) {
      at = putZigZag(raw, at, count);
      continue;
    }
    let zeros = 1;
    while (i < limit && v.getCountAtIndex(i) === 0) {
      zeros++;
      i++;
    }
    at = putZigZag(raw, at, zeros > 1 ? -zeros : 0);
  }
  raw.writeInt32BE(at - V2_HEADER_BYTES, 4);
  const deflated = deflateSync(raw.subarray(0, at));
  const out = Buffer.allocUnsafe(8 + deflated.length);
  out.writeInt32BE(V2_COMPRESSED_COOKIE | 0, 0);
  out.writeInt32BE(deflated.length, 4);
  deflated.copy(out, 8);
  return out.toString('base64');
}

/** Decodes {@link encodeHistogram}'s output (and the library's). */
export function decodeHistogram(s: string): LatencyHistogram {
  const data = Buffer.from(s.trim(), 'base64');
  if (data.length < 8 || ((data.readInt32BE(0) & ~0xf0) | 0) !== (0x1c849304 | 0))
    throw new Error('not a V2 compressed histogram');
  const raw = inflateSync(data.subarray(8, 8 + data.readInt32BE(4)));
  if (raw.length < V2_HEADER_BYTES || raw.readInt32BE(0) !== (V2_COOKIE | 0))
    throw new Error('not a V2 histogram');
  const payload = raw.readInt32BE(4);
  const h = new Int32Histogram(
    Number(raw.readBigInt64BE(16)),
    Number(raw.readBigInt64BE(24)),
    raw.readInt32BE(12),
  ) as unknown as CountsView & LatencyHistogram;
  const at = { i: V2_HEADER_BYTES };
  const end = V2_HEADER_BYTES + payload;
  let index = 0;
  while (at.i < end) {
    const count = getZigZag(raw, at);
    if (count < 0) index -= count;
    else h.setCountAtIndex(index++, count);
  }
  h.establishInternalTackingValues(index);
  return h;
}

/** Percentiles and max in milliseconds (0 for an empty histogram). */
export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
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
