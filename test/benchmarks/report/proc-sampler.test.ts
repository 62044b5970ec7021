import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ProcSampler,
  parseRssMb,
  parseStatTicks,
  slope,
  summarizeWatch,
} from '../../../src/benchmarks/watch/proc-sampler';

const stat = (ticks: number) =>
  `4242 (node (m serve)) S 1 4242 4242 0 -1 4194560 100 0 0 0 ${ticks - 10} 10 0 0 20 0 11 0 100 1000 500`;
const status = (kb: number) => `Name:\tnode\nVmPeak:\t  999999 kB\nVmRSS:\t  ${kb} kB\nThreads:\t11\n`;

afterEach(() => {
  vi.useRealTimers();
});

describe('ProcSampler', () => {
  it('parses utime+stime after a comm with spaces and parentheses, and VmRSS', () => {
    expect(parseStatTicks(stat(250))).toBe(250);
    expect(parseRssMb(status(204800))).toBe(200);
  });

  it('reports CPU from tick deltas and the RSS trend', () => {
    let ticks = 0;
    let kb = 100 * 1024;
    const files: Record<string, () => string> = {
      '/proc/4242/stat': () => {
        ticks += 5;
        return stat(ticks);
      },
      '/proc/4242/status': () => {
        kb += 10 * 1024;
        return status(kb);
      },
    };
    // Fake clocks: sample times are rounded to 0.1 s, so real milliseconds would make the slope depend on
    // how busy the machine is.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const sampler = new ProcSampler(4242, 1000, (p) => files[p]!());
    sampler.start();
    vi.advanceTimersByTime(6_000);
    const w = sampler.stop();
    expect(w.samples.length).toBe(8);
    expect(w.cpuMaxPercent).toBeGreaterThan(0);
    expect(w.rssEndMb).toBeGreaterThan(w.rssStartMb);
    expect(w.memoryTrend).toBe('growing');
    expect(w.exited).toBe(false);
  });

  it('refuses a process that does not exist and marks one that exits', () => {
    const missing = new ProcSampler(1, 1000, () => {
      throw new Error('ENOENT');
    });
    expect(() => missing.start()).toThrow(/no process 1/);
    let alive = true;
    const s = new ProcSampler(7, 1000, (p) => {
      if (!alive) throw new Error('ENOENT');
      return p.endsWith('stat') ? stat(10) : status(1024);
    });
    s.start();
    alive = false;
    expect(s.stop().exited).toBe(true);
  });

  it('computes a least-squares slope and calls a flat series stable', () => {
    expect(
      slope([
        [0, 1],
        [1, 3],
        [2, 5],
      ]),
    ).toBeCloseTo(2);
    const flat = summarizeWatch(
      1,
      [0, 1, 2, 3].map((t) => ({ t: t * 60, cpuPercent: 10, rssMb: 100 })),
      false,
    );
    expect(flat).toMatchObject({ rssSlopeMbPerMin: 0, memoryTrend: 'stable', cpuAvgPercent: 10 });
  });
});
