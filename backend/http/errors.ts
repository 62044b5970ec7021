import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { PlatformError, type PlatformErrorOptions } from '../../src/contract/errors';
import type { ErrorBody, ErrorCode, FieldError } from '../../src/protocol';
import { isDiskFull } from './disk-full';

export type { ErrorBody, ErrorCode, FieldError, PlatformErrorOptions };
export { PlatformError };

/** Shorthand for a PlatformError with an HTTP status. */
export function httpError(
  status: number,
  code: ErrorCode,
  message: string,
  options: Omit<PlatformErrorOptions, 'status'> = {},
) {
  return new PlatformError(code, message, { ...options, status });
}

/** Builds the JSON error body. */
export function errorBody(code: ErrorCode, message: string, fields?: FieldError[]): ErrorBody {
  return { error: fields?.length ? { code, message, fields } : { code, message } };
}

/** Sends the JSON error body with the given status (and `Cache-Control: no-store`). */
export function errorResponse(
  c: Context,
  status: number,
  code: ErrorCode,
  message: string,
  fields?: FieldError[],
) {
  c.header('Cache-Control', 'no-store');
  return c.json(errorBody(code, message, fields), status as ContentfulStatusCode);
}

/**
 * An unexpected error as the log names it: its name, its `code` when it has one (a system or database error's,
 * e.g. `ECONNREFUSED`, `42P01`) and where it was thrown (the stack's first frame, relative to the working
 * directory). Not its message: an error thrown by app code may quote a decrypted value
 * (`new Error('no customer ' + email)`), and the log holds no personal data (docs/security.md).
 */
export function unexpected(err: Error): string {
  const code = (err as { code?: unknown }).code;
  const named = typeof code === 'string' || typeof code === 'number' ? `${err.name} (${code})` : err.name;
  const frame = err.stack
    ?.split('\n')
    .find((line) => line.trimStart().startsWith('at '))
    ?.trim()
    .slice(3);
  if (!frame) return named;
  const place = /\(([^()]+)\)$/.exec(frame)?.[1] ?? frame;
  // The offline mocks run this in a browser, which has no working directory.
  const cwd = typeof process === 'undefined' ? undefined : process.cwd?.();
  return `${named} at ${cwd ? place.replace(`file://${cwd}/`, '').replace(`${cwd}/`, '') : place}`;
}

/** Logs without personal data: the code and message of a PlatformError, the name of anything else. */
export type ErrorLogger = (line: string) => void;

/**
 * Hono `onError` handler: PlatformErrors keep their status and code; a full disk is a 507
 * `insufficient_storage` (RFC 4918 section 11.5); anything else is a 500 `internal_error` whose details go to
 * the log ({@link unexpected}: never its message, nor the request body).
 */
export function handleError(log: ErrorLogger = (l) => console.error(l)) {
  return function onError(err: Error, c: Context) {
    const maybe = err as Partial<PlatformError> & { status?: number };
    if (typeof maybe.code === 'string' && typeof maybe.status === 'number' && err.name === 'PlatformError') {
      for (const [k, v] of Object.entries(maybe.headers ?? {})) c.header(k, v);
      if (maybe.status >= 500)
        log(`${c.req.method} ${c.req.path} -> ${maybe.status} ${maybe.code}: ${err.message}`);
      return errorResponse(c, maybe.status, maybe.code, err.message, maybe.fields);
    }
    // Hono's own HTTPException (e.g. from a body limit) carries a status: keep it, with a generic code.
    if (
      typeof maybe.status === 'number' &&
      maybe.status >= 400 &&
      maybe.status < 600 &&
      maybe.status !== 500
    ) {
      return errorResponse(c, maybe.status, statusCode(maybe.status), statusMessage(maybe.status));
    }
    // The device holding the data is full (docs/operators.md#disk-full): the statement that failed was rolled
    // back with its transaction, so nothing of the write is kept; reads go on being served, and writes succeed
    // again once space is freed, without a restart.
    if (isDiskFull(err)) {
      log(`${c.req.method} ${c.req.path} -> 507 insufficient_storage: no space left on the data's device`);
      c.header('Retry-After', '60');
      return errorResponse(
        c,
        507,
        'insufficient_storage',
        'The server has no storage space left; nothing was stored. Retry later.',
      );
    }
    // A body whose connection went away before it arrived (the client left, or was cut for going silent,
    // docs/security.md#slow-bodies): nobody is left to read an answer and nothing went wrong here, so it is
    // no 500 in the log.
    if (err.message === 'aborted' && (err as { code?: string }).code === 'ECONNRESET') {
      return errorResponse(c, 408, 'request_timeout', 'The request body did not arrive.');
    }
    log(`${c.req.method} ${c.req.path} -> 500 internal_error: ${unexpected(err)}`);
    return errorResponse(c, 500, 'internal_error', 'The server could not complete the request.');
  };
}

/** Hono `notFound` handler: unknown routes get the same JSON shape. */
export function notFound(c: Context) {
  return errorResponse(c, 404, 'not_found', `No route for ${c.req.method} ${c.req.path}.`);
}

function statusCode(status: number): ErrorCode {
  const codes: Record<number, ErrorCode> = {
    400: 'bad_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    409: 'conflict',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    422: 'unprocessable',
    429: 'rate_limited',
    502: 'bad_gateway',
    503: 'unavailable',
    504: 'gateway_timeout',
  };
  return codes[status] ?? 'http_error';
}

function statusMessage(status: number): string {
  return `The request failed with status ${status}.`;
}
