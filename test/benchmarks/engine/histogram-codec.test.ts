/**
 * The harness writes HdrHistogram's V2 compressed form itself (on node:zlib, without loading the
 * library's index): the text must be the library's own, byte for byte, and read back to the same counts,
 * so result files and worker messages stay readable by any HdrHistogram decoder.
 */
import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import {
  decodeHistogram,
  encodeHistogram,
  type LatencyHistogram,
  newHistogram,
  recordUs,
  summarize,
} from '../../../src/benchmarks/engine/histogram';

/** The histogram the harness made with the library's builder before (same layout). */
const libraryHistogram = () =>
  hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 600_000_000,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 32,
  });

/** Records the same pseudo-random latencies (spread over six decades) into both. */
function fill(mine: LatencyHistogram, theirs: LatencyHistogram, n: number): void {
  let x = n + 1;
  for (let i = 0; i < n; i++) {
    x = (x * 48271) % 2147483647;
    const us = (x % 100_000) ** (1 + (i % 3) / 2);
    recordUs(mine, us);
    recordUs(theirs, us);
  }
}

describe('histogram codec', () => {
  it.each([0, 1, 40, 5000])('writes the library text for %i latencies and reads it back', (n) => {
    const mine = newHistogram();
    const theirs = libraryHistogram();
    fill(mine, theirs, n);
    const text = encodeHistogram(mine);
    expect(text).toBe(hdr.encodeIntoCompressedBase64(theirs));

    const back = decodeHistogram(text);
    const libraryBack = hdr.decodeFromCompressedBase64(text, 32);
    expect(back.totalCount).toBe(n);
    expect(back.totalCount).toBe(libraryBack.totalCount);
    expect(back.maxValue).toBe(libraryBack.maxValue);
    expect(back.minNonZeroValue).toBe(libraryBack.minNonZeroValue);
    expect(summarize(back)).toEqual(summarize(libraryBack));
    expect(encodeHistogram(back)).toBe(text);
  });

  it('keeps a count beyond 31 bits (a ZigZag word of more than four bytes)', () => {
    const mine = newHistogram();
    const theirs = libraryHistogram();
    mine.recordValueWithCount(77, 3_000_000_000);
    theirs.recordValueWithCount(77, 3_000_000_000);
    const text = encodeHistogram(mine);
    expect(text).toBe(hdr.encodeIntoCompressedBase64(theirs));
    expect(decodeHistogram(text).totalCount).toBe(3_000_000_000);
  });

  it('refuses text that is not a compressed V2 histogram', () => {
    expect(() => decodeHistogram(Buffer.from('not a histogram').toString('base64'))).toThrow(/V2/);
  });
});
