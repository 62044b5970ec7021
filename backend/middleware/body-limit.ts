import type { Context, MiddlewareHandler } from 'hono';
import { JOSE_CONTENT_TYPE } from '../../src/protocol';
import { attachmentTooLarge, isAttachmentUpload } from '../attachments/attachment';
import { presentedCredential } from '../auth/credentials';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { requestHeader } from '../http/node-request';
import { readLimitedBody } from '../http/read-limited-body';
import { type ChainStep, stepMiddleware } from './step';

/** Options of {@link bodyLimit}. */
export interface BodyLimitOptions {
  /** Largest body of a request presenting a credential (`server.max_body_bytes`). */
  maxBodyBytes: number;
  /** Largest body of a request presenting none (`server.max_anonymous_body_bytes`). */
  maxAnonymousBodyBytes: number;
  /** Largest `application/jose` body of a request presenting a credential (`max_jwe_bytes`). */
  maxJweBytes: number;
  /**
   * Largest body of a file attached to a record (`attachments.max_bytes`), on the upload route only
   * (`POST /api/resource/<doctype>/<name>/attachments`) and only for a request presenting a credential.
   */
  maxAttachmentBytes?: number;
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

/** Reads a chunked body up to `limit` into Hono's body cache (413 past it); the request goes on. */
async function readChunked(c: Context<AppEnv>, limit: number): Promise<undefined> {
  await readLimitedBody(c, limit, () => bodyTooLarge(limit));
  return undefined;
}

/**
 * BodyLimitMiddleware (priority 12, docs/security.md#middleware-chain): every request body is limited before
 * anything parses it. A request without a credential gets the small limit (sign-in needs a few hundred bytes),
 * one with a credential `server.max_body_bytes` (an encrypted one `max_jwe_bytes`). Whether the credential is
 * valid is not known yet and does not matter: the limit only bounds memory. An attachment upload gets
 * `attachments.max_bytes` instead (its route checks the same limit again, with words naming it).
 *
 * A declared `Content-Length` over the limit is refused at once, before a byte is read (synchronously). A body
 * without one (chunked) is read here, streamed and cut off at the limit, and kept for the handler, so no reader
 * ever holds more than the limit. Memory is therefore bounded by the limit times the concurrent requests.
 */
export function bodyLimitStep(options: BodyLimitOptions): ChainStep {
  return {
    name: 'bodyLimit',
    enter(c) {
      const declared = requestHeader(c, 'content-length');
      if (declared === undefined && requestHeader(c, 'transfer-encoding') === undefined) return undefined;
      const anonymous = presentedCredential(c) === undefined;
      const attachment =
        !anonymous &&
        options.maxAttachmentBytes !== undefined &&
        isAttachmentUpload(c.req.method, c.req.path);
      const limit = anonymous
        ? options.maxAnonymousBodyBytes
        : isJose(requestHeader(c, 'content-type'))
          ? Math.max(options.maxJweBytes, options.maxBodyBytes)
          : attachment
            ? Math.max(options.maxAttachmentBytes ?? 0, options.maxBodyBytes)
            : options.maxBodyBytes;
      if (declared !== undefined) {
        if (!(Number(declared) <= limit)) throw attachment ? attachmentTooLarge(limit) : bodyTooLarge(limit);
        return undefined;
      }
      const method = c.req.method;
      return method === 'GET' || method === 'HEAD' ? undefined : readChunked(c, limit);
    },
  };
}

function isJose(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().startsWith(JOSE_CONTENT_TYPE) === true;
}

/** {@link bodyLimitStep} as a Hono middleware of its own. */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler<AppEnv> {
  return stepMiddleware(bodyLimitStep(options));
}
