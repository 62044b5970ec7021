/**
 * `--watch-target`: reads the target's own `GET /metrics` (OpenMetrics, docs/operators.md#metrics) once a
 * second while the load runs, and turns each pair of readings into one sample of the server's side of the
 * run: its CPU and memory, the requests it answered, its database statements (rate, mean time, slow ones),
 * the pool's connections and the database's cache hit rate. The samples go to the live dashboard,
 * `result.json` and the report, next to the load that caused them.
 */

import { harnessError } from '../errors';

/** One second of the target as its metrics tell it (rates over the interval since the previous reading). */
export interface TargetMetricsSample {
  /** Seconds since sampling began. */
  t: number;
  /** CPU of the server process, % of one core. */
  cpuPercent: number;
  rssMb: number;
  /** Event-loop delay p99 of the server process, ms. */
  loopDelayMs: number;
  /** Requests the server answered per second (all clients, this reader's included). */
  requestsPerSecond: number;
  /** Database statements per second. */
  statementsPerSecond: number;
  /** Mean time of those statements, ms (null when none ran). */
  statementMeanMs: number | null;
  /** Statements slower than the server's `slow_statement_ms`, in this interval. */
  slowStatements: number;
  /** Share of database blocks found in its buffer cache in this interval, % (null when none were read). */
  cacheHitPercent: number | null;
  /** Open connections of the server's pool (PostgreSQL), or null. */
  connectionsOpen: number | null;
  /** Callers waiting for a pool connection, or null. */
  connectionsWaiting: number | null;
  /** Background job items (import rows) processed per second. */
  jobItemsPerSecond: number;
  /** Items unfinished background jobs still have to process. */
  jobItemsRemaining: number;
}

/** What `--watch-target` adds to `result.json`. */
export interface TargetMetricsWatch {
  /** The `/metrics` URL read. */
  url: string;
  samples: TargetMetricsSample[];
  cpuAvgPercent: number;
  cpuMaxPercent: number;
  rssMaxMb: number;
  /** Requests the target answered between the first reading and the last (all clients, readings included). */
  requestsAnswered: number;
  /** Slow statements over the whole run. */
  slowStatements: number;
  /** Cache hit rate over the whole run, % (null when no block was read). */
  cacheHitPercent: number | null;
  /** Most callers waiting for a pool connection in any second (null without a pool). */
  connectionsWaitingMax: number | null;
  /** Readings that failed (refused, unreachable, not OpenMetrics). */
  failedReadings: number;
  /** The first failure's reason, for the summary. */
  firstFailure?: string;
}

/** Series name with its label set exactly as written (`name{a="b"}`) -> value. */
export type MetricsReading = Map<string, number>;

/** Parses OpenMetrics (or Prometheus) text into {@link MetricsReading}; comments and blank lines are skipped. */
export function parseMetricsText(text: string): MetricsReading {
  const reading: MetricsReading = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (space <= 0) continue;
    const value = Number(line.slice(space + 1).replace('+Inf', 'Infinity'));
    if (!Number.isNaN(value)) reading.set(line.slice(0, space), value);
  }
  return reading;
}

/** Sum of every series of `name` (any labels) whose label set contains `match` (e.g. `kind="select"`). */
function sumOf(r: MetricsReading, name: string, match?: string): number {
  let total = 0;
  for (const [series, value] of r) {
    if (series !== name && !series.startsWith(`${name}{`)) continue;
    if (match && !series.includes(match)) continue;
    total += value;
  }
  return total;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** One sample from two readings `seconds` apart (`t` is the later reading's time). */
export function sampleBetween(
  before: MetricsReading,
  after: MetricsReading,
  seconds: number,
  t: number,
): TargetMetricsSample {
  const delta = (name: string) => Math.max(0, sumOf(after, name) - sumOf(before, name));
  const per = (n: number) => (seconds > 0 ? n / seconds : 0);
  const statements = delta('platform_db_statement_duration_seconds_count');
  const statementSeconds = delta('platform_db_statement_duration_seconds_sum');
  const hit = delta('platform_db_blocks_hit_total');
  const read = delta('platform_db_blocks_read_total');
  const pooled = after.has('platform_db_connections{state="open"}');
  return {
    t,
    cpuPercent: round1(per(delta('process_cpu_seconds_total')) * 100),
    rssMb: round1((after.get('process_resident_memory_bytes') ?? 0) / 1_048_576),
    loopDelayMs: round1((after.get('nodejs_eventloop_delay_seconds{quantile="0.99"}') ?? 0) * 1000),
    requestsPerSecond: round1(per(delta('platform_http_requests_total'))),
    statementsPerSecond: round1(per(statements)),
    statementMeanMs: statements > 0 ? Math.round((statementSeconds / statements) * 1e6) / 1000 : null,
    slowStatements: delta('platform_db_slow_statements_total'),
    cacheHitPercent: hit + read > 0 ? round1((hit / (hit + read)) * 100) : null,
    connectionsOpen: pooled ? (after.get('platform_db_connections{state="open"}') ?? 0) : null,
    connectionsWaiting: pooled ? (after.get('platform_db_connections{state="waiting"}') ?? 0) : null,
    jobItemsPerSecond: round1(per(delta('platform_job_items_processed_total'))),
    jobItemsRemaining: sumOf(after, 'platform_job_items_remaining'),
  };
}

/** Summarises the samples of a run (and the first and last readings, for whole-run rates). */
export function summarizeTargetMetrics(
  url: string,
  samples: TargetMetricsSample[],
  first: MetricsReading | undefined,
  last: MetricsReading | undefined,
  failures: { count: number; first?: string },
): TargetMetricsWatch {
  const cpu = samples.map((s) => s.cpuPercent);
  const waiting = samples.map((s) => s.connectionsWaiting).filter((v): v is number => v !== null);
  const whole = (name: string) => (first && last ? Math.max(0, sumOf(last, name) - sumOf(first, name)) : 0);
  const hit = whole('platform_db_blocks_hit_total');
  const read = whole('platform_db_blocks_read_total');
  return {
    url,
    samples,
    cpuAvgPercent: round1(cpu.length ? cpu.reduce((a, b) => a + b, 0) / cpu.length : 0),
    cpuMaxPercent: round1(cpu.length ? Math.max(...cpu) : 0),
    rssMaxMb: round1(Math.max(0, ...samples.map((s) => s.rssMb))),
    requestsAnswered: whole('platform_http_requests_total'),
    slowStatements: whole('platform_db_slow_statements_total'),
    cacheHitPercent: hit + read > 0 ? round1((hit / (hit + read)) * 100) : null,
    connectionsWaitingMax: waiting.length ? Math.max(...waiting) : null,
    failedReadings: failures.count,
    ...(failures.first ? { firstFailure: failures.first } : {}),
  };
}

/** The target answered `/metrics` with an error status. */
class MetricsRefused extends Error {}

/** Options of {@link TargetMetricsSampler}. */
export interface TargetMetricsSamplerOptions {
  /** The target's base URL; `/metrics` is read under it. */
  targetUrl: string;
  /** `Authorization` header value (an API key of a System Manager or a Metrics Reader). */
  authorization: string;
  intervalMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

/**
 * Reads `/metrics` of the target every interval. A reading that fails is counted and skipped: the load
 * goes on, and the summary says how many readings were missed and why the first one was.
 */
export class TargetMetricsSampler {
  readonly url: string;
  readonly #samples: TargetMetricsSample[] = [];
  readonly #options: TargetMetricsSamplerOptions;
  #timer: NodeJS.Timeout | undefined;
  #started = 0;
  #first: MetricsReading | undefined;
  #previous: { reading: MetricsReading; at: number } | undefined;
  #failures: { count: number; first?: string } = { count: 0 };
  #inFlight: Promise<void> | undefined;

  constructor(options: TargetMetricsSamplerOptions) {
    this.#options = options;
    this.url = new URL('/metrics', options.targetUrl).toString();
  }

  /**
   * Takes the first reading, then one per interval. A first reading that fails stops the run before any
   * load: `login_failed` when the target refuses the credentials, `target_unreachable` when it cannot
   * be reached.
   */
  async start(): Promise<void> {
    this.#started = performance.now();
    let reading: MetricsReading;
    try {
      reading = await this.#read();
    } catch (err) {
      const refused = err instanceof MetricsRefused;
      throw harnessError(
        refused ? 'login_failed' : 'target_unreachable',
        refused
          ? `${(err as Error).message}: --watch-target needs PLATFORM_API_KEY, an API key of a System Manager or a Metrics Reader`
          : `--watch-target could not read ${this.url}: ${(err as Error).message}`,
        err,
      );
    }
    this.#first = reading;
    this.#previous = { reading, at: performance.now() };
    this.#timer = setInterval(() => {
      this.#inFlight ??= this.#tick().finally(() => {
        this.#inFlight = undefined;
      });
    }, this.#options.intervalMs ?? 1000);
    this.#timer.unref();
  }

  /** The samples so far (the live dashboard draws them). */
  samplesSoFar(): readonly TargetMetricsSample[] {
    return this.#samples;
  }

  /** Takes a last reading and summarises. */
  async stop(): Promise<TargetMetricsWatch> {
    clearInterval(this.#timer);
    await this.#inFlight;
    await this.#tick();
    return summarizeTargetMetrics(
      this.url,
      this.#samples,
      this.#first,
      this.#previous?.reading,
      this.#failures,
    );
  }

  async #tick(): Promise<void> {
    try {
      const reading = await this.#read();
      const at = performance.now();
      const previous = this.#previous;
      if (previous) {
        const t = Math.round((at - this.#started) / 100) / 10;
        this.#samples.push(sampleBetween(previous.reading, reading, (at - previous.at) / 1000, t));
      }
      this.#previous = { reading, at };
    } catch (err) {
      this.#failures.count += 1;
      this.#failures.first ??= (err as Error).message;
    }
  }

  async #read(): Promise<MetricsReading> {
    const res = await (this.#options.fetch ?? fetch)(this.url, {
      headers: { authorization: this.#options.authorization, accept: 'application/openmetrics-text' },
      signal: AbortSignal.timeout(5_000),
    });
    if (!res.ok) throw new MetricsRefused(`GET ${this.url} answered ${res.status}`);
    return parseMetricsText(await res.text());
  }
}
