import type { TimelinePoint } from './aggregate';

/** Where the live view writes: a stream that may be a terminal. */
export interface LiveStream {
  write(s: string): unknown;
  isTTY?: boolean;
  /** Terminal width: the status line is cut to it, since a wrapped line cannot be rewritten in place. */
  columns?: number;
}

/** Seconds between plain lines when the output is not a terminal (logs, CI). */
const PLAIN_EVERY_S = 5;

/**
 * The live view of a run: on a terminal, one status line rewritten in place every second (progress, users,
 * current RPS, p95, errors, 429/503, generator delay); elsewhere a plain line every 5 s that logs can keep.
 */
export class LiveView {
  private drawn = false;
  private lastPlain = -PLAIN_EVERY_S;
  private totals = { count: 0, errors: 0, throttled: 0 };

  constructor(
    private readonly out: LiveStream,
    private readonly durationSeconds: number,
  ) {}

  /** Shows a finished second. */
  update(p: TimelinePoint): void {
    this.totals.count += p.rps;
    this.totals.errors += p.errors;
    this.totals.throttled += p.throttled;
    const line = this.line(p);
    if (this.out.isTTY) {
      const width = this.out.columns ? this.out.columns - 1 : line.length;
      this.out.write(`\r\x1b[2K${line.slice(0, width)}`);
      this.drawn = true;
    } else if (p.t - this.lastPlain >= PLAIN_EVERY_S) {
      this.lastPlain = p.t;
      this.out.write(`${line}\n`);
    }
  }

  /** Ends the live line before the summary. */
  done(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }

  private line(p: TimelinePoint): string {
    // The last point may be a partial second after the end (requests still in flight): shown as the end.
    const elapsed = Math.min(p.t + 1, this.durationSeconds);
    const pct = Math.round((elapsed / this.durationSeconds) * 100);
    const bar = this.out.isTTY ? `[${'#'.repeat(Math.round(pct / 5)).padEnd(20, '.')}] ` : '';
    const errPct = this.totals.count > 0 ? (this.totals.errors / this.totals.count) * 100 : 0;
    return (
      `${bar}${String(elapsed).padStart(4)}/${this.durationSeconds}s ${String(pct).padStart(3)}%` +
      `  users ${p.users}  rps ${p.rps}  p95 ${p.latency.p95.toFixed(1)} ms` +
      `  errors ${this.totals.errors} (${errPct.toFixed(2)}%)  429/503 ${this.totals.throttled}` +
      (p.dropped > 0 ? `  dropped ${p.dropped}` : '') +
      `  lag ${p.lagMs.toFixed(0)} ms`
    );
  }
}
