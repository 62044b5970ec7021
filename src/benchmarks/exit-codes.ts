/**
 * Exit codes of `m benchmark` and `load-test.js` (a public API, as in k6: CI scripts switch on them;
 * docs/load-testing.md#metrics-verdict-and-exit-codes lists them). When several apply, the first in this order wins: invalid config,
 * target unreachable, run incomplete (a worker lost), aborted by a threshold, generator saturated (its numbers
 * cannot be trusted, so thresholds are not judged on them), thresholds breached.
 */
export const EXIT = {
  /** The run finished and every threshold held (`--compare`: no regression). */
  pass: 0,
  /** An unexpected internal error. */
  internalError: 1,
  /** Wrong command-line usage. */
  usage: 2,
  /** A threshold was breached. */
  thresholdsBreached: 3,
  /** The configuration file is invalid, or names a DocType or service the target does not know. */
  invalidConfig: 4,
  /** The target did not answer (connection refused, DNS, timeout), before or throughout the run. */
  targetUnreachable: 5,
  /** The load generator could not produce the configured load; its numbers are untrustworthy. */
  generatorSaturated: 6,
  /** `--compare`: the second result regressed against the first. */
  regression: 7,
  /** A threshold with `abort_on_fail` was breached during the run, which was stopped (report written). */
  thresholdAborted: 8,
  /** `--nats`: a worker was lost during the run; the numbers cover only part of the load (report written). */
  incomplete: 9,
} as const;

type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Exit code of a harness error code (see `errors.ts`). */
export function exitCodeOf(code: string): ExitCode {
  switch (code) {
    case 'target_unreachable':
      return EXIT.targetUnreachable;
    case 'target_mismatch':
    case 'factory_failed':
    // Raised before any load only by --watch-target, whose credentials the target refused.
    case 'login_failed':
    case 'invalid_config':
      return EXIT.invalidConfig;
    case 'invalid_result':
      return EXIT.usage;
    case 'workers_missing':
      return EXIT.incomplete;
    default:
      return EXIT.internalError;
  }
}
