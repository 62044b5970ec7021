import { PlatformError } from '../contract';
import type { ErrorCode } from '../protocol';

/**
 * Failures of the harness before or around a run, as {@link PlatformError}s with stable codes:
 * `target_unreachable` (no connection to target_url), `target_mismatch` (the target does not know a
 * configured DocType or service), `login_failed`, `factory_failed`, `invalid_result` (a `--compare` file).
 * The CLI maps codes to exit codes (`exit-codes.ts`).
 */
export function harnessError(code: ErrorCode, message: string, cause?: unknown): PlatformError {
  return new PlatformError(code, message, { cause });
}

/** The stable code of an error thrown by the harness or by undici (`UND_ERR_*`, `ECONNREFUSED`, ...). */
export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return err instanceof Error ? err.name : 'unknown_error';
}
