import { createHash } from 'node:crypto';

/** The fixed computation: SHA-256 of a 4 kB buffer, this many times (about 4 ms on the reference machine). */
const HASHES = 1000;
const BLOCK = Buffer.alloc(4096, 7);
/** Untimed runs before the first timed one: the first runs of the computation are compiled, and slower. */
const WARM_UP_RUNS = 20;

/** One run of the fixed computation; returns the CPU milliseconds it took. */
export function timeFixedWork(): number {
  const before = process.cpuUsage();
  let sink = 0;
  for (let i = 0; i < HASHES; i++) sink ^= createHash('sha256').update(BLOCK).digest()[0]!;
  const used = process.cpuUsage(before);
  // Keeps the loop's result alive so no engine can drop the work.
  if (sink === -1) throw new Error('unreachable');
  return (used.user + used.system) / 1000;
}

/** One timing of the fixed computation, at `at` (ms, `performance.now()`). */
export interface SpeedSample {
  at: number;
  ms: number;
}

/** The median CPU milliseconds of the samples taken in `(from, to]`; undefined with none. */
export function medianMs(samples: readonly SpeedSample[], from: number, to: number): number | undefined {
  const inWindow = samples
    .filter((s) => s.at > from && s.at <= to)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  return inWindow.length === 0 ? undefined : inWindow[Math.floor(inWindow.length / 2)];
}

/**
 * The verdict's line on the machine's speed: how long the fixed computation took while the run was judged.
 * On a machine shared with others (a virtual machine's host) the same work can take longer in one minute
 * than in the next, and the server's CPU for the same requests rises with it
 * (docs/performance.md#why-the-20000min-step-varies). Compare it between runs on one machine, under load:
 * on an idle machine the same computation takes longer still, each run starting on a core that was idle.
 */
export function speedLine(during: number | undefined): string {
  if (during === undefined) return 'machine speed: not measured';
  return `machine speed: a fixed computation took ${during.toFixed(2)} ms of CPU while judged (median; lower is faster)`;
}

/**
 * Times the fixed computation every `intervalMs` in this process, which idles while the harness (a child
 * process) loads the server: about 1 % of a core, spent the same way in every run.
 */
export class SpeedProbe {
  readonly samples: SpeedSample[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly intervalMs = 500) {}

  /** Starts timing, after untimed runs: the first few runs of the computation are compiled and slower. */
  start(): void {
    for (let i = 0; i < WARM_UP_RUNS; i++) timeFixedWork();
    this.#timer = setInterval(() => {
      this.samples.push({ at: performance.now(), ms: timeFixedWork() });
    }, this.intervalMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
