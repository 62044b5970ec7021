import type { Context } from 'hono';
import { PlatformError } from './errors';

/** 413 `payload_too_large`, raised before any parsing or crypto (docs/security.md#cheap-checks-first). */
export function payloadTooLarge(maxBytes: number): PlatformError {
  return new PlatformError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, {
    status: 413,
  });
}

/**
 * Reads the request body, refusing it with `tooLarge()` (default 413 `payload_too_large`) once it passes
 * `maxBytes`: a declared `Content-Length` is
 * checked before reading (the HTTP parser then delivers exactly that many bytes, read through the adapter's
 * fast path); a chunked body is streamed and cut off at the limit, so it never exceeds it in memory. The bytes
 * land in Hono's body cache, so later readers (`c.req.text()`, `readJsonBody`) see the same body.
 */
export async function readLimitedBody(
  c: Context,
  maxBytes: number,
  tooLarge: () => PlatformError = () => payloadTooLarge(maxBytes),
): Promise<Uint8Array> {
  const declared = c.req.header('content-length');
  const cache = c.req.bodyCache as Record<string, Promise<unknown> | undefined>;
  if (declared !== undefined || cache.arrayBuffer) {
    if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge();
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw tooLarge();
    return bytes;
  }
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
      await reader.cancel().catch(() => {});
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
  cache.arrayBuffer = Promise.resolve(bytes.slice().buffer);
  return bytes;
}
