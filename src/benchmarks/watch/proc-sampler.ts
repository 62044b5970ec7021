import { readFileSync } from 'node:fs';

/** One sample of the watched process. */
export interface ProcSample {
  /** Seconds since sampling began. */
  t: number;
  /** CPU time used since the previous sample, % of one core. */
  cpuPercent: number;
  rssMb: number;
}

/** What `--watch-pid` reports about the target process. */
export interface TargetWatch {
  pid: number;
  samples: ProcSample[];
  cpuAvgPercent: number;
  cpuMaxPercent: number;
  rssStartMb: number;
  rssEndMb: number;
  rssMaxMb: number;
  /** Least-squares slope of RSS over the second half of the run (after warm-up), MB per minute. */
  rssSlopeMbPerMin: number;
  /** `stable` while |slope| < 0.5 MB/min (docs/load-testing.md#reference-targets: memory growth stable). */
  memoryTrend: 'stable' | 'growing' | 'shrinking';
  /** The process went away during the run. */
  exited: boolean;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
export const USER_HZ = 100;
const STABLE_SLOPE_MB_PER_MIN = 0.5;

/** utime + stime in ticks from a /proc/<pid>/stat line (fields 14 and 15, after the parenthesised comm). */
export function parseStatTicks(stat: string): number {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]);
}

/** VmRSS in MB from /proc/<pid>/status. */
export function parseRssMb(status: string): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return m ? Number(m[1]) / 1024 : 0;
}

/** Least-squares slope of y over x (0 with fewer than two points). */
export function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Summarizes samples into a {@link TargetWatch}. */
export function summarizeWatch(pid: number, samples: ProcSample[], exited: boolean): TargetWatch {
  const cpu = samples.slice(1).map((s) => s.cpuPercent);
  const half = samples.slice(Math.floor(samples.length / 2));
  const perMin = slope(half.map((s) => [s.t / 60, s.rssMb]));
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    pid,
    samples,
    cpuAvgPercent: round(cpu.length ? cpu.reduce((a, b) => a + b, 0) / cpu.length : 0),
    cpuMaxPercent: round(cpu.length ? Math.max(...cpu) : 0),
    rssStartMb: round(samples[0]?.rssMb ?? 0),
    rssEndMb: round(samples.at(-1)?.rssMb ?? 0),
    rssMaxMb: round(Math.max(0, ...samples.map((s) => s.rssMb))),
    rssSlopeMbPerMin: round(perMin),
    memoryTrend: Math.abs(perMin) < STABLE_SLOPE_MB_PER_MIN ? 'stable' : perMin > 0 ? 'growing' : 'shrinking',
    exited,
  };
}

/**
 * Samples CPU and RSS of a process from /proc/<pid>/stat and /proc/<pid>/status once per interval
 * (`--watch-pid`). Linux only; a process that exits ends the sampling and is reported as exited.
 */
export class ProcSampler {
  private readonly samples: ProcSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private exited = false;
  private last: { ticks: number; at: number } | undefined;
  private started = 0;

  constructor(
    readonly pid: number,
    private readonly intervalMs = 1000,
    private readonly read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
  ) {}

  /** Throws when the process does not exist. */
  start(): void {
    this.started = performance.now();
    this.sample();
    if (this.exited) throw new Error(`no process ${this.pid} under /proc`);
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  /** The samples taken so far (the live dashboard draws them). */
  samplesSoFar(): readonly ProcSample[] {
    return this.samples;
  }

  /** Stops sampling and summarizes. */
  stop(): TargetWatch {
    clearInterval(this.timer);
    if (!this.exited) this.sample();
    return summarizeWatch(this.pid, this.samples, this.exited);
  }

  private sample(): void {
    if (this.exited) return;
    let ticks: number;
    let rssMb: number;
    try {
      ticks = parseStatTicks(this.read(`/proc/${this.pid}/stat`));
      rssMb = parseRssMb(this.read(`/proc/${this.pid}/status`));
    } catch {
      this.exited = true;
      clearInterval(this.timer);
      return;
    }
    const at = performance.now();
    const cpuPercent = this.last
      ? ((ticks - this.last.ticks) / USER_HZ / ((at - this.last.at) / 1000)) * 100
      : 0;
    this.last = { ticks, at };
    this.samples.push({
      t: Math.round((at - this.started) / 100) / 10,
      cpuPercent: Math.round(cpuPercent * 10) / 10,
      rssMb: Math.round(rssMb * 10) / 10,
    });
  }
}
