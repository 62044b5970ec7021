/**
 * The SDK's one error type. Every failure the SDK raises carries a stable string `code`; callers switch on
 * `err.code` through {@link isSdkError}, never on `instanceof`, because a page can load two copies of the SDK
 * (the shell and a remote each bundling one) and a class from one copy is not the class of the other.
 */

import type { FieldError } from '../protocol';

/** Codes the SDK itself raises. HTTP errors also carry the server's own codes (`validation_failed`, ...). */
export type SdkErrorCode =
  | 'discovery_failed'
  | 'discovery_timeout'
  | 'unknown_service'
  | 'unknown_resource'
  | 'http_error'
  | 'network_error'
  | 'invalid_response'
  | 'encryption_failed'
  | 'security_config_unavailable'
  | 'remote_load_failed'
  | 'remote_timeout'
  | 'remote_not_registered'
  | 'remote_integrity_failed'
  | 'unsupported_filter'
  | 'platform_config_invalid';

/** One field-level problem, as the server's `{ error: { fields } }` carries it (never the submitted value). */
export type SdkFieldError = FieldError;

/** Options of {@link SdkError}. */
export interface SdkErrorOptions {
  /** HTTP status, for errors that come from a response. */
  status?: number;
  fields?: SdkFieldError[];
  /** How long the server asked to wait before trying again (its `Retry-After`), in ms. */
  retryAfterMs?: number;
  cause?: unknown;
}

/** Brand shared by every copy of the SDK (`Symbol.for` resolves to one symbol per realm). */
const BRAND = Symbol.for('framework-m.sdk-error');

/**
 * An SDK failure with a stable `code`.
 *
 * @example
 * try { await client.resolve('crm.Customer'); }
 * catch (e) { if (isSdkError(e) && e.code === 'discovery_timeout') showOfflineBanner(); }
 */
export class SdkError extends Error {
  override name = 'SdkError';
  readonly code: string;
  readonly status?: number;
  readonly fields?: SdkFieldError[];
  /** How long the server asked to wait before trying again (its `Retry-After`, e.g. on 503 `login_busy`), in ms. */
  readonly retryAfterMs?: number;

  constructor(code: SdkErrorCode | (string & {}), message: string, options: SdkErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    if (options.status !== undefined) this.status = options.status;
    if (options.fields?.length) this.fields = options.fields;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * True for an error raised by any copy of the SDK: checked by brand and shape (`code` a string), so it holds
 * across bundles where `instanceof SdkError` would not.
 */
export function isSdkError(value: unknown): value is SdkError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<PropertyKey, unknown>;
  return (
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string' &&
    (candidate[BRAND] === true || candidate.name === 'SdkError' || candidate.name === 'HttpError')
  );
}

/** True when `value` is the rejection of an aborted operation (a `signal` fired), which is never wrapped. */
export function isAbortError(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    ((value as { name?: unknown }).name === 'AbortError' ||
      (value as { name?: unknown }).name === 'TimeoutError')
  );
}
