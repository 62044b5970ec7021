/**
 * The JWE that carries an encrypted body. Whether a body is encrypted is the wire contract's
 * `requiresEncryption` (src/protocol/encryption-policy.ts): the server enforces that rule, the client applies
 * the same one. When it says encrypt, any failure is an `encryption_failed` error: never plaintext.
 */
import type { RequestBinding } from '../../protocol';
import { encryptCompact, type JweRecipient, jweRecipient } from './compact-jwe';

/** What {@link encryptPayload} returns: the request body and its content type. */
export interface EncryptedPayload {
  body: string;
  contentType: string;
}

/** Most URLs whose path is kept (a page sends its bodies to a handful of URLs, over and over). */
const PATH_CACHE_SIZE = 64;
const paths = new Map<string, string>();
/**
 * A URL whose path does not depend on the page's own URL: an absolute path (`/api/...`, not `//host` or
 * `/\host`, which name a host) or an absolute http(s) URL. Only those are kept: a relative path resolves
 * against the page, which a single-page app changes.
 */
const BASE_FREE = /^(?:\/(?![/\\])|https?:\/\/)/i;

/** The path of `url` (absolute, or relative to the page), without query or fragment. */
export function pathOf(url: string): string {
  const known = paths.get(url);
  if (known !== undefined) return known;
  const base = (globalThis as { location?: { href?: string } }).location?.href ?? 'http://localhost/';
  const path = new URL(url, base).pathname;
  if (BASE_FREE.test(url)) {
    if (paths.size >= PATH_CACHE_SIZE) paths.clear();
    paths.set(url, path);
  }
  return path;
}

/**
 * The JSON text of a body: a string is taken as JSON text already serialized; anything else is serialized.
 */
export function serializeBody(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body ?? null);
}

/** The request binding (docs/security.md#a-jwe-is-bound-to-its-request): upper-case method and the path without query. */
export function requestBinding(url: string, method: string): RequestBinding {
  return { htm: method.toUpperCase(), htu: pathOf(url) };
}

/**
 * Encrypts `plaintext` to `key` as a compact JWE: `alg RSA-OAEP-256`, `enc A256GCM`, and a protected header
 * carrying `kid`, `htm` and `htu` (authenticated as AAD, so the server can refuse a token replayed elsewhere),
 * `iat` (seconds) and a random `jti` (so the server can refuse the same token replayed to the same request).
 * A token is for one request: encrypt again for a retry. `issuedAtMs` is the time on the server's clock
 * (`SecurityClient` passes its estimate), default this machine's clock. `SecurityClient` itself keeps a
 * {@link JweRecipient} per key instead of preparing the header for every body.
 */
export function encryptJwe(
  plaintext: string,
  key: CryptoKey,
  kid: string,
  binding: RequestBinding,
  issuedAtMs: number = Date.now(),
): Promise<string> {
  return encryptCompact(jweRecipient(key, kid), plaintext, binding, issuedAtMs);
}
