import type { Context } from 'hono';
import { PlatformError } from '../http/errors';
import { readLimitedBody } from '../http/read-limited-body';

/**
 * Reads a request body as UTF-8 text, refusing it with `tooLarge()` as soon as it is known to exceed
 * `maxBytes`: from `Content-Length` before reading anything, else while streaming, so an oversized body
 * is never buffered whole (docs/security.md#cheap-checks-first: size limits first).
 */
export async function readTextLimited(
  c: Context,
  maxBytes: number,
  tooLarge: () => PlatformError,
): Promise<string> {
  return decodeUtf8(await readLimitedBody(c, maxBytes, tooLarge));
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new PlatformError('invalid_query', 'The body is not UTF-8 text.', { status: 400 });
  }
}
