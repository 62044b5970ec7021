/**
 * Header names and media types both sides of the wire agree on. HTTP header names are case-insensitive
 * (RFC 9110 section 5.1); these are the spellings the platform sends.
 */

/** Request header naming the resolved owner service, so the gateway routes without a lookup. */
export const SERVICE_HEADER = 'X-Platform-Service';

/** Request header carrying the session's CSRF token on unsafe, cookie-authenticated requests. */
export const CSRF_HEADER = 'X-CSRF-Token';

/** Request header making a mutating request safe to retry (the server replays the stored answer). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Media type of a plain JSON body. */
export const JSON_CONTENT_TYPE = 'application/json';

/** Media type of an encrypted body: a compact JWE (RFC 7516). */
export const JOSE_CONTENT_TYPE = 'application/jose';
