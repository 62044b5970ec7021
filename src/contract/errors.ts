/**
 * The platform's base error. Environment-agnostic, so the backend, the CLI, app code and the load-test
 * harness throw the same class; a server turns it into the one JSON error body (docs/http-api.md#errors).
 */
import type { ErrorCode, FieldError } from '../protocol';

/** Options of {@link PlatformError}. */
export interface PlatformErrorOptions {
  /** HTTP status when the error reaches a response; default 500. */
  status?: number;
  fields?: FieldError[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The base error of the platform. Callers switch on `code`, not on `instanceof` (two copies of the package
 * would make `instanceof` lie). Thrown inside a request, it becomes the JSON error body with its `status`.
 *
 * @example
 * throw new PlatformError('not_found', 'No such record.', { status: 404 });
 */
export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: PlatformErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = options.status ?? 500;
    this.fields = options.fields;
    this.headers = options.headers;
  }
}
