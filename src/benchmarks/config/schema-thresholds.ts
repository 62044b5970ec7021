import { z } from 'zod';

/** A `thresholds:` block: of the whole run, of a scenario, or of one step of a flow. */
export const thresholdsSchema = z.strictObject({
  /** 95th percentile latency limit in milliseconds (reference target: below 200 ms). */
  p95_ms: z.number().positive().optional(),
  /** 99th percentile latency limit in milliseconds (no default). */
  p99_ms: z.number().positive().optional(),
  /** Error-rate limit as a fraction, 429/503 excluded (reference target: below 0.01). */
  error_rate: z.number().min(0).max(1).optional(),
  /** Minimum requests per second over the run (no default). */
  min_rps: z.number().positive().optional(),
  /**
   * Stop the run as soon as a latency or error-rate limit of this block is breached (checked every
   * second on the numbers so far, after the grace period); the report is still written.
   */
  abort_on_fail: z.boolean().optional(),
  /** Seconds from the start during which abort_on_fail is not judged (default 10). */
  abort_grace_seconds: z.number().min(0).optional(),
});
