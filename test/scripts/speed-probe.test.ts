/**
 * The reference bench's machine-speed probe: the median of a window's timings of a fixed computation, and
 * the verdict's line with it.
 */
import { describe, expect, it } from 'vitest';
import { medianMs, speedLine, timeFixedWork } from '../../bench/reference/speed-probe';

describe('the machine-speed probe', () => {
  it('takes the median of the timings inside the window only', () => {
    const samples = [
      { at: 100, ms: 9 },
      { at: 1000, ms: 4 },
      { at: 1500, ms: 5 },
      { at: 2000, ms: 40 },
      { at: 3000, ms: 1 },
    ];
    expect(medianMs(samples, 500, 2000)).toBe(5);
    expect(medianMs(samples, 0, 100)).toBe(9);
    expect(medianMs(samples, 3000, 4000)).toBeUndefined();
  });

  it("prints the judged window's median, or that it was not measured", () => {
    expect(speedLine(4.4)).toBe(
      'machine speed: a fixed computation took 4.40 ms of CPU while judged (median; lower is faster)',
    );
    expect(speedLine(undefined)).toBe('machine speed: not measured');
  });

  it('times real work', () => {
    expect(timeFixedWork()).toBeGreaterThan(0);
  });
});
