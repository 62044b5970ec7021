/**
 * How one request counts (docs/load-testing.md#metrics-verdict-and-exit-codes):
 * - `ok`: its status is in `expect_status`;
 * - `throttled`: 429 (rate limiting) or 503 (readiness gate) not expected: counted apart and excluded from
 *   the error rate, numerator and denominator;
 * - `failed`: any other status: a failure, counted in the error rate;
 * - `error`: no response at all (connection refused or reset, timeout, login failed): an error too.
 */
export type Outcome = 'ok' | 'throttled' | 'failed' | 'error';

/** Statuses excluded from the error rate. */
const THROTTLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Classifies a response status against a scenario's `expect_status`. */
export function classify(status: number, expectStatus: readonly number[]): Exclude<Outcome, 'error'> {
  if (expectStatus.includes(status)) return 'ok';
  if (THROTTLE_STATUSES.has(status)) return 'throttled';
  return 'failed';
}

/**
 * Error rate: failures and transport errors over the requests that were not throttled (0 when there are none).
 */
export function errorRate(c: { failed: number; errors: number; throttled: number; count: number }): number {
  const judged = c.count - c.throttled;
  return judged > 0 ? (c.failed + c.errors) / judged : 0;
}
