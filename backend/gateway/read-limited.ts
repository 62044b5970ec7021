import type { Context } from 'hono';
import { PlatformError } from '../http/errors';

/**
 * Reads a request body as UTF-8 text, refusing it with `tooLarge()` as soon as it is known to exceed
 * `maxBytes`: from `Content-Length` before reading anything, else while streaming, so an oversized body
 * is never buffered whole (SECURITY.md rule 6: size limits first).
 */
export async function readTextLimited(
  c: Context,
  maxBytes: number,
  tooLarge: () => PlatformError,
): Promise<string> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && /^\d+$/.test(declared)) {
    if (Number(declared) > maxBytes) throw tooLarge();
    // The declared length is within the limit and the server stops at it: the adapter's fast path is safe.
    return decodeUtf8(new Uint8Array(await c.req.arrayBuffer()));
  }
  const stream = c.req.raw.body;
  if (!stream) return '';
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decodeUtf8(bytes);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new PlatformError('invalid_query', 'The body is not UTF-8 text.', { status: 400 });
  }
}
