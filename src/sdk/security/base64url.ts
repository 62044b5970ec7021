/**
 * Base64url without padding (RFC 4648 section 5, as RFC 7515 section 2 uses it) of bytes, and of a byte
 * range of a larger buffer without copying it out first: the JWE's ciphertext and tag are the two parts of
 * one WebCrypto result.
 */

/** `Uint8Array.prototype.toBase64` (TC39 "Uint8Array to/from base64"), where the engine has it. */
type WithToBase64 = Uint8Array & {
  toBase64?: (options: { alphabet: 'base64url'; omitPadding: boolean }) => string;
};

/** Node's `Buffer`, where there is one (the SDK also runs in Node: tests, the load-test harness). */
type BufferLike = {
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(enc: string): string };
};

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ascii = new TextDecoder();

const nativeBase64 = typeof (Uint8Array.prototype as WithToBase64).toBase64 === 'function';
const nodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** The base64url text of `bytes`, without padding. */
export function base64url(bytes: Uint8Array): string {
  if (nativeBase64) return (bytes as WithToBase64).toBase64!({ alphabet: 'base64url', omitPadding: true });
  if (nodeBuffer)
    return nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
  return portable(bytes);
}

/** Table encoding into one ASCII buffer decoded once: no string built a character at a time. */
function portable(bytes: Uint8Array): string {
  const n = bytes.length;
  const out = new Uint8Array(Math.ceil((n * 4) / 3));
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = CODES[v >> 18]!;
    out[o++] = CODES[(v >> 12) & 63]!;
    out[o++] = CODES[(v >> 6) & 63]!;
    out[o++] = CODES[v & 63]!;
  }
  if (i < n) {
    const v = (bytes[i]! << 16) | (i + 1 < n ? bytes[i + 1]! << 8 : 0);
    out[o++] = CODES[v >> 18]!;
    out[o++] = CODES[(v >> 12) & 63]!;
    if (i + 1 < n) out[o++] = CODES[(v >> 6) & 63]!;
  }
  return ascii.decode(out.subarray(0, o));
}

/** The portable encoder on its own, for tests on engines that have a native one. */
export const base64urlPortable = portable;
