import { hmac } from '@noble/hashes/hmac';
import { sha256 as sha256Bytes } from '@noble/hashes/sha2';
import { base64url } from 'jose';

/**
 * The hashing the auth chain and the idempotency keys need, synchronous and free of Node modules so the same
 * code runs on the server and in the offline mock inside a browser.
 */

/** SHA-256, base64url. Secrets are stored and compared only in this form. */
export function sha256(value: string | Uint8Array): string {
  return base64url.encode(sha256Bytes(value));
}

/** HMAC-SHA256 of `message` under `key`, base64url. */
export function hmacSha256(key: Uint8Array, message: string): string {
  return base64url.encode(hmac(sha256Bytes, key, new TextEncoder().encode(message)));
}

/** Compares two strings in time that depends only on their lengths (no early exit on the first difference). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}

/** `bytes` random bytes from the platform's CSPRNG. */
export function randomBytes(bytes: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(bytes));
}

/** A random token of `bytes` random bytes, base64url. */
export function randomToken(bytes = 32): string {
  return base64url.encode(randomBytes(bytes));
}
