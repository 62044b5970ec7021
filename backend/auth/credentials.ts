import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { sha256 } from './digest';

export { sha256 } from './digest';

/** Name of the session cookie (HttpOnly, SameSite=Lax, Path=/). */
export const SESSION_COOKIE = 'sid';

/**
 * The credential a request presents, before anything checked it. An `Authorization` header, when present,
 * is the only credential looked at (no fallback to the cookie), so a request is either header-authenticated
 * (exempt from the cookie CSRF token) or cookie-authenticated, never both.
 */
export type PresentedCredential =
  | { kind: 'session'; token: string }
  | { kind: 'api_key'; key: string; secret: string }
  | { kind: 'bearer'; token: string }
  | { kind: 'malformed' };

const TOKEN_AUTH = /^token ([A-Za-z0-9_-]{1,128}):([A-Za-z0-9_-]{1,256})$/i;
const BEARER_AUTH = /^bearer ([A-Za-z0-9._~+/-]{1,1024}=*)$/i;

/**
 * What each request presented, so the middleware that all ask (rate limit, body limit, CSRF, auth) parse the
 * headers once. Keyed by the request object, so an entry goes with its request.
 */
const presented = new WeakMap<Request, PresentedCredential | null>();

/** Reads the presented credential from headers only (no body, no database); parsed once per request. */
export function presentedCredential(c: Context): PresentedCredential | undefined {
  const request = c.req.raw;
  let credential = presented.get(request);
  if (credential === undefined) {
    credential = readCredential(c) ?? null;
    presented.set(request, credential);
  }
  return credential ?? undefined;
}

function readCredential(c: Context): PresentedCredential | undefined {
  const authorization = c.req.header('authorization');
  if (authorization !== undefined) {
    const token = TOKEN_AUTH.exec(authorization);
    if (token) return { kind: 'api_key', key: token[1]!, secret: token[2]! };
    const bearer = BEARER_AUTH.exec(authorization);
    if (bearer) return { kind: 'bearer', token: bearer[1]! };
    return { kind: 'malformed' };
  }
  const session = getCookie(c, SESSION_COOKIE);
  return session ? { kind: 'session', token: session } : undefined;
}

/** Hashes of recently presented credentials: one caller's requests hash its credential once. */
const recentHashes = new Map<string, string>();
const RECENT_HASHES_MAX = 10_000;

function cachedSha256(text: string): string {
  let hash = recentHashes.get(text);
  if (hash === undefined) {
    hash = sha256(text);
    if (recentHashes.size >= RECENT_HASHES_MAX) recentHashes.clear();
    recentHashes.set(text, hash);
  }
  return hash;
}

/**
 * A stable hash identifying the presented credential: the rate-limit bucket of a caller and part of its
 * idempotency lookup key (docs/security.md#idempotency-is-keyed-by-caller). Malformed credentials hash the
 * raw header, so they do not all share one bucket.
 */
export function credentialHash(c: Context, credential: PresentedCredential): string {
  switch (credential.kind) {
    case 'session':
      return cachedSha256(`session:${credential.token}`);
    case 'api_key':
      return cachedSha256(`api_key:${credential.key}:${credential.secret}`);
    case 'bearer':
      return cachedSha256(`bearer:${credential.token}`);
    case 'malformed':
      return sha256(`malformed:${c.req.header('authorization') ?? ''}`);
  }
}
