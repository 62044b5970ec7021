import type { MiddlewareHandler } from 'hono';
import { JOSE_CONTENT_TYPE } from '../../src/protocol';
import { presentedCredential } from '../auth/credentials';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { readLimitedBody } from '../http/read-limited-body';

/** Options of {@link bodyLimit}. */
export interface BodyLimitOptions {
  /** Largest body of a request presenting a credential (`server.max_body_bytes`). */
  maxBodyBytes: number;
  /** Largest body of a request presenting none (`server.max_anonymous_body_bytes`). */
  maxAnonymousBodyBytes: number;
  /** Largest `application/jose` body of a request presenting a credential (`max_jwe_bytes`). */
  maxJweBytes: number;
}

/**
 * 413 `payload_too_large`. The connection is closed after the answer (`Connection: close`) rather than
 * drained, so a client still sending a huge body costs nothing more.
 */
export function bodyTooLarge(maxBytes: number): PlatformError {
  return new PlatformError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, {
    status: 413,
    headers: { Connection: 'close' },
  });
}

/**
 * BodyLimitMiddleware (priority 12, docs/security.md#middleware-chain): every request body is limited before
 * anything parses it. A request without a credential gets the small limit (sign-in needs a few hundred bytes),
 * one with a credential `server.max_body_bytes` (an encrypted one `max_jwe_bytes`). Whether the credential is
 * valid is not known yet and does not matter: the limit only bounds memory.
 *
 * A declared `Content-Length` over the limit is refused at once, before a byte is read. A body without one
 * (chunked) is read here, streamed and cut off at the limit, and kept for the handler, so no reader ever holds
 * more than the limit. Memory is therefore bounded by the limit times the concurrent requests.
 */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler<AppEnv> {
  return async function bodyLimit(c, next) {
    const method = c.req.method;
    const declared = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (declared === undefined && !chunked) return next();
    const anonymous = presentedCredential(c) === undefined;
    const jose = (c.req.header('content-type') ?? '').toLowerCase().startsWith(JOSE_CONTENT_TYPE);
    const limit = anonymous
      ? options.maxAnonymousBodyBytes
      : jose
        ? Math.max(options.maxJweBytes, options.maxBodyBytes)
        : options.maxBodyBytes;
    if (declared !== undefined && !(Number(declared) <= limit)) throw bodyTooLarge(limit);
    if (declared === undefined && method !== 'GET' && method !== 'HEAD') {
      await readLimitedBody(c, limit, () => bodyTooLarge(limit));
    }
    return next();
  };
}
