import type { Context } from 'hono';
import { parse as parseCookie } from 'hono/utils/cookie';
import { requestHeader } from '../http/node-request';
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
 * What a request presented, kept on the request object itself, so the middleware that all ask (rate limit,
 * body limit, CSRF, auth) read the headers once and the answer goes with its request.
 */
const PRESENTED = Symbol('presentedCredential');
type WithPresented = Request & { [PRESENTED]?: PresentedCredential | null };

/** Reads the presented credential from headers only (no body, no database); parsed once per request. */
export function presentedCredential(c: Context): PresentedCredential | undefined {
  const request = c.req.raw as WithPresented;
  let credential = request[PRESENTED];
  if (credential === undefined) {
    credential = readCredential(c) ?? null;
    request[PRESENTED] = credential;
  }
  return credential ?? undefined;
}

/**
 * Credentials parsed from recently seen `Authorization` and `Cookie` header values (bounded): a caller's
 * requests all carry the same value, so it is parsed once and each of them gets the same frozen credential
 * object, whose hash (below) and cache key (the AuthService's) are then remembered with it.
 */
const fromAuthorization = new Map<string, PresentedCredential>();
const fromCookie = new Map<string, PresentedCredential | null>();
const PARSED_MAX = 10_000;

function readCredential(c: Context): PresentedCredential | undefined {
  const authorization = requestHeader(c, 'authorization');
  if (authorization !== undefined) {
    let credential = fromAuthorization.get(authorization);
    if (credential === undefined) {
      credential = Object.freeze(parseAuthorization(authorization));
      if (fromAuthorization.size >= PARSED_MAX) fromAuthorization.clear();
      fromAuthorization.set(authorization, credential);
    }
    return credential;
  }
  const cookie = requestHeader(c, 'cookie');
  if (!cookie) return undefined;
  let credential = fromCookie.get(cookie);
  if (credential === undefined) {
    const session = parseCookie(cookie, SESSION_COOKIE)[SESSION_COOKIE];
    credential = session ? Object.freeze({ kind: 'session', token: session } as const) : null;
    if (fromCookie.size >= PARSED_MAX) fromCookie.clear();
    fromCookie.set(cookie, credential);
  }
  return credential ?? undefined;
}

function parseAuthorization(authorization: string): PresentedCredential {
  const token = TOKEN_AUTH.exec(authorization);
  if (token) return { kind: 'api_key', key: token[1]!, secret: token[2]! };
  const bearer = BEARER_AUTH.exec(authorization);
  if (bearer) return { kind: 'bearer', token: bearer[1]! };
  return { kind: 'malformed' };
}

/** Hashes of recently presented credentials: one caller's requests hash its credential once. */
const recentHashes = new Map<string, string>();
const RECENT_HASHES_MAX = 10_000;
/** The hash of each credential object (a caller's requests share one, see above). */
const hashOf = new WeakMap<PresentedCredential, string>();

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
  if (credential.kind === 'malformed') return sha256(`malformed:${requestHeader(c, 'authorization') ?? ''}`);
  let hash = hashOf.get(credential);
  if (hash === undefined) {
    hash = cachedSha256(credentialText(credential));
    hashOf.set(credential, hash);
  }
  return hash;
}

function credentialText(credential: Exclude<PresentedCredential, { kind: 'malformed' }>): string {
  switch (credential.kind) {
    case 'session':
      return `session:${credential.token}`;
    case 'api_key':
      return `api_key:${credential.key}:${credential.secret}`;
    case 'bearer':
      return `bearer:${credential.token}`;
  }
}
