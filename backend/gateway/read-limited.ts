import type { Context } from 'hono';
import { PlatformError } from '../http/errors';
import { limitedBody } from '../http/read-limited-body';

/**
 * Reads a request body as UTF-8 text, refusing it with `tooLarge()` as soon as it is known to exceed
 * `maxBytes`: from `Content-Length` before reading anything, else while streaming, so an oversized body
 * is never buffered whole (docs/security.md#cheap-checks-first: size limits first). The text itself when the
 * body was already read, so a caller can answer without a promise; a refusal before reading is thrown.
 */
export function textLimited(
  c: Context,
  maxBytes: number,
  tooLarge: () => PlatformError,
): string | Promise<string> {
  const body = limitedBody(c, maxBytes, tooLarge);
  return body instanceof Promise ? body.then(decodeUtf8) : decodeUtf8(body);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new PlatformError('invalid_query', 'The body is not UTF-8 text.', { status: 400 });
  }
}
