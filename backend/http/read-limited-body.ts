import type { Context } from 'hono';
import { PlatformError } from './errors';
import { keepBody, keptBody, readNodeBody } from './kept-body';
import { requestHeader } from './node-request';

/** 413 `payload_too_large`, raised before any parsing or crypto (docs/security.md#cheap-checks-first). */
export function payloadTooLarge(maxBytes: number): PlatformError {
  return new PlatformError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, {
    status: 413,
  });
}

/**
 * Reads the request body, refusing it with `tooLarge()` (default 413 `payload_too_large`) once it passes
 * `maxBytes`: a declared `Content-Length` is checked before reading (the HTTP parser then delivers exactly that
 * many bytes, taken from the node:http request where there is one, `readNodeBody`); a chunked body is streamed
 * and cut off at the limit, so it never exceeds it in memory. The bytes are kept for later readers
 * (`c.req.text()`, `readJsonBody`, a second call here).
 */
export function readLimitedBody(
  c: Context,
  maxBytes: number,
  tooLarge: () => PlatformError = () => payloadTooLarge(maxBytes),
): Promise<Uint8Array> {
  try {
    const body = limitedBody(c, maxBytes, tooLarge);
    return body instanceof Promise ? body : Promise.resolve(body);
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * {@link readLimitedBody}, answering synchronously when the body is already read (a chunked body the body
 * limit read, a second reader), so a caller with nothing else to wait for can answer without a promise.
 * Throws `tooLarge()` synchronously for a declared length over the limit.
 */
export function limitedBody(
  c: Context,
  maxBytes: number,
  tooLarge: () => PlatformError = () => payloadTooLarge(maxBytes),
): Uint8Array | Promise<Uint8Array> {
  const kept = keptBody(c);
  if (kept !== undefined) {
    if (kept instanceof Promise) return kept.then((bytes) => within(bytes, maxBytes, tooLarge));
    return within(kept, maxBytes, tooLarge);
  }
  const declared = requestHeader(c, 'content-length');
  const cache = c.req.bodyCache as Record<string, Promise<unknown> | undefined>;
  if (declared !== undefined || cache.arrayBuffer) {
    if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge();
    // node:http delivers exactly the declared length, checked above.
    const read = declared !== undefined ? readNodeBody(c, Number(declared)) : undefined;
    if (read !== undefined) return read;
    return c.req.arrayBuffer().then((buffer) => within(new Uint8Array(buffer), maxBytes, tooLarge));
  }
  return readChunked(c, maxBytes, tooLarge);
}

function within(bytes: Uint8Array, maxBytes: number, tooLarge: () => PlatformError): Uint8Array {
  if (bytes.byteLength > maxBytes) throw tooLarge();
  return bytes;
}

/** A body without a declared length, streamed and cut off past `maxBytes`. */
async function readChunked(c: Context, maxBytes: number, tooLarge: () => PlatformError): Promise<Uint8Array> {
  const stream = c.req.raw.body;
  if (!stream || c.req.raw.bodyUsed) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Not awaited: the refusal does not depend on it, and the cancel of a teed stream (a request cloned
      // to be logged) settles only once every branch is cancelled.
      void reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  keepBody(c, bytes);
  return bytes;
}
