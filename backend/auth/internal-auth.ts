import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { PERMISSIONS_PREFIX } from '../../src/protocol';
import type { AppEnv, Principal } from '../http/env';
import { errorResponse, PlatformError } from '../http/errors';

/** Headers of a request the gateway forwards to a service. */
export const INTERNAL_HEADERS = {
  principal: 'x-platform-principal',
  timestamp: 'x-platform-timestamp',
  signature: 'x-platform-signature',
  idempotency: 'x-platform-idempotency',
} as const;

/** Response header a service sets when it refused a request's signature. */
export const TRUST_REJECTED_HEADER = 'x-platform-trust-rejected';

/** Environment variable holding the secret gateways and services share (at least 32 characters). */
export const INTERNAL_SECRET_ENV = 'PLATFORM_INTERNAL_SECRET';

/** How far a signed request's timestamp may be from the service's clock: limits replays of a captured one. */
export const MAX_SKEW_MS = 60_000;

/** What a signature covers; every field is part of the MAC so none can be swapped independently. */
export interface SignedRequest {
  method: string;
  /** Path and query exactly as sent to the service. */
  target: string;
  /** The body bytes sent (empty string for none). */
  body: string | Uint8Array;
  principal?: Principal;
  /** The caller-scoped `Idempotency-Key` lookup key the service keeps the record under, when one was sent. */
  idempotency?: string;
}

function mac(
  secret: string,
  method: string,
  target: string,
  ts: string,
  principal: string,
  body: string | Uint8Array,
  idempotency: string,
) {
  const bodyHash = createHash('sha256').update(body).digest('hex');
  const fields = ['desk-internal-v1', method.toUpperCase(), target, ts, principal, bodyHash];
  // Only present when sent, so a request without a key signs exactly as before.
  if (idempotency) fields.push(`idempotency:${idempotency}`);
  return createHmac('sha256', secret).update(fields.join('\n')).digest('hex');
}

/**
 * Headers proving a request comes from a gateway: the principal AuthMiddleware established (base64url JSON,
 * absent for an anonymous request), a timestamp, the idempotency lookup key when the caller sent an
 * `Idempotency-Key`, and `v1=<HMAC-SHA256>` over method, path+query, timestamp, principal, a SHA-256 of the
 * body and that lookup key (when present), keyed with the shared secret.
 */
export function signInternalRequest(
  secret: string,
  req: SignedRequest,
  now = Date.now(),
): Record<string, string> {
  const principal = req.principal ? Buffer.from(JSON.stringify(req.principal)).toString('base64url') : '';
  const ts = String(now);
  const headers: Record<string, string> = {
    [INTERNAL_HEADERS.timestamp]: ts,
    [INTERNAL_HEADERS.signature]: `v1=${mac(secret, req.method, req.target, ts, principal, req.body, req.idempotency ?? '')}`,
  };
  if (principal) headers[INTERNAL_HEADERS.principal] = principal;
  if (req.idempotency) headers[INTERNAL_HEADERS.idempotency] = req.idempotency;
  return headers;
}

/**
 * Checks the headers of {@link signInternalRequest}; resolves to the principal (null for a signed anonymous
 * request) or undefined when the request is not validly signed.
 */
export function verifyInternalRequest(
  secret: string,
  req: Omit<SignedRequest, 'principal'> & { headers: Headers },
  now = Date.now(),
): Principal | null | undefined {
  const ts = req.headers.get(INTERNAL_HEADERS.timestamp) ?? '';
  const sig = req.headers.get(INTERNAL_HEADERS.signature) ?? '';
  const principal = req.headers.get(INTERNAL_HEADERS.principal) ?? '';
  const idempotency = req.headers.get(INTERNAL_HEADERS.idempotency) ?? '';
  if (!/^\d{1,16}$/.test(ts) || Math.abs(now - Number(ts)) > MAX_SKEW_MS || !sig.startsWith('v1=')) {
    return undefined;
  }
  const expected = Buffer.from(mac(secret, req.method, req.target, ts, principal, req.body, idempotency));
  const given = Buffer.from(sig.slice(3));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  if (!principal) return null;
  try {
    const parsed = JSON.parse(Buffer.from(principal, 'base64url').toString('utf8')) as Principal;
    const roles = (parsed as { roles?: unknown })?.roles;
    // The roles a service enforces come from here only: a malformed list makes the whole signature useless.
    const rolesOk =
      roles === undefined || (Array.isArray(roles) && roles.every((r) => typeof r === 'string'));
    return typeof parsed?.user === 'string' && typeof parsed?.via === 'string' && rolesOk
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}

/** True for the paths a service answers only for its gateway (data API and RPC need a principal). */
function isProtected(path: string): boolean {
  return (
    path.startsWith('/api/resource/') ||
    path.startsWith('/api/method/') ||
    path.startsWith('/api/history/') ||
    path === PERMISSIONS_PREFIX ||
    path.startsWith(`${PERMISSIONS_PREFIX}/`)
  );
}

/**
 * Service-side middleware (MACROSERVICE): the gateway ran the whole security chain (rate limit, decryption,
 * CSRF, idempotency, auth), so a service trusts a request only when the gateway signed it. A signed request
 * gets the gateway's principal (`c.get('principal')`); the data API and RPC answer 401 `untrusted_caller`
 * to anything unsigned or forged, and 401 `unauthorized` to a signed request without a principal. Metadata,
 * OpenAPI and UI assets stay public, as at the gateway.
 */
export function trustGateway(secret: string): MiddlewareHandler<AppEnv> {
  return async function trustGatewayMiddleware(c, next) {
    const signed = c.req.header(INTERNAL_HEADERS.signature) !== undefined;
    const guarded = isProtected(c.req.path);
    if (!signed && !guarded) return next();
    const url = new URL(c.req.url);
    // The bytes as sent: an attachment is binary, and decoding it as text would change what was signed.
    const body =
      c.req.method === 'GET' || c.req.method === 'HEAD' ? '' : new Uint8Array(await c.req.arrayBuffer());
    const principal = verifyInternalRequest(secret, {
      method: c.req.method,
      target: url.pathname + url.search,
      body,
      headers: c.req.raw.headers,
    });
    if (principal === undefined) {
      // Lets a gateway tell "my signature was refused" (a secret mismatch) from an ordinary 401.
      c.header(TRUST_REJECTED_HEADER, '1');
      return errorResponse(
        c,
        401,
        'untrusted_caller',
        'This service only answers requests from its gateway.',
      );
    }
    if (principal === null && guarded) {
      return errorResponse(c, 401, 'unauthorized', 'Authentication required.');
    }
    if (principal) c.set('principal', principal);
    // Covered by the signature just checked: the lookup key the service keeps the idempotency record under.
    const idempotency = c.req.header(INTERNAL_HEADERS.idempotency);
    if (idempotency && principal !== undefined) c.set('idempotencyLookup', idempotency);
    return next();
  };
}

/**
 * The shared secret from `PLATFORM_INTERNAL_SECRET` in `env` (the process's root passes its environment).
 * MACROSERVICE gateways and services refuse to start without one of at least 32 characters
 * (`config_invalid`), so a service never runs unprotected.
 */
export function readInternalSecret(env: NodeJS.ProcessEnv): string {
  const secret = env[INTERNAL_SECRET_ENV] ?? '';
  if (secret.length < 32) {
    throw new PlatformError(
      'config_invalid',
      `${INTERNAL_SECRET_ENV} must be set to a secret of at least 32 characters shared by the gateway and its services (MACROSERVICE mode).`,
    );
  }
  return secret;
}
