/**
 * The one error of a non-2xx answer. The platform answers every error as
 * `{ "error": { "code", "message", "fields"? } }` (docs/http-api.md#errors); the SDK keeps the server's
 * `code` (falling back to `http_error`), the status and the field errors, so callers switch on `err.code`.
 */
import { parseRetryAfter } from '../../protocol';
import { SdkError, type SdkFieldError } from '../errors';

/** A non-2xx HTTP answer, as an {@link SdkError} whose `status` is always set. */
export class HttpError extends SdkError {
  override name = 'HttpError';
  declare readonly status: number;

  constructor(
    code: string,
    message: string,
    status: number,
    fields?: SdkFieldError[],
    retryAfterMs?: number,
  ) {
    super(code, message, { status, fields, retryAfterMs });
  }
}

function isFieldError(value: unknown): value is SdkFieldError {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Record<string, unknown>;
  return typeof f.field === 'string' && typeof f.code === 'string' && typeof f.message === 'string';
}

/** Builds the {@link HttpError} of `response`, reading the platform's JSON error body when there is one. */
export async function httpErrorFrom(response: Response): Promise<HttpError> {
  let code = 'http_error';
  let message = `The request failed with status ${response.status}.`;
  let fields: SdkFieldError[] | undefined;
  try {
    const body = (await response.json()) as { error?: Record<string, unknown> };
    const error = body?.error;
    if (error && typeof error.code === 'string') code = error.code;
    if (error && typeof error.message === 'string') message = error.message;
    if (error && Array.isArray(error.fields)) fields = error.fields.filter(isFieldError);
  } catch {
    // Not the platform's JSON error body (a proxy's HTML page, an empty body): keep the generic code.
  }
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  return new HttpError(code, message, response.status, fields, retryAfterMs);
}
