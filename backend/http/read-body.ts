import type { Context } from 'hono';
import { keyNotForService } from '../security/jwe/errors';
import type { AppEnv } from './env';
import { PlatformError } from './errors';
import { requestHeader } from './node-request';
import { parseSafeJson } from './safe-json';

/** Refuses bytes that are not UTF-8 (RFC 8259 section 8.1) instead of replacing them with U+FFFD. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body bytes as text, or 400 `invalid_json` when they are not valid UTF-8 (an overlong form, a lone
 * continuation byte, a surrogate encoded as in CESU-8): such a body would otherwise be stored with U+FFFD in
 * place of what the client sent, where the encrypted path refuses it.
 */
export function decodeUtf8Body(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new PlatformError('invalid_json', 'The request body is not valid UTF-8.', { status: 400 });
  }
}

/**
 * The JSON body of a request: the plaintext PayloadDecryptionMiddleware already produced (decrypted JWE or
 * checked JSON), else the raw body parsed safely. A body a gateway holds sealed for a service is 400
 * `key_not_for_service`. A body that is not `application/json` is 415; an empty
 * body is `{}`; bytes that are not UTF-8 are 400 `invalid_json`. The result is memoised on the context so
 * every reader (idempotency, handler) sees the same.
 */
export async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  const cached = c.get('jsonBody');
  if (cached !== undefined) return cached;
  // A body encrypted to a service's key is for that service only: nothing here can read it.
  if (c.get('sealedJwe') !== undefined) throw keyNotForService();
  const text = decodeUtf8Body(new Uint8Array(await c.req.arrayBuffer()));
  if (text.trim() === '') {
    c.set('jsonBody', {});
    return {};
  }
  const type = (requestHeader(c, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new PlatformError('unsupported_media_type', 'Send the body as application/json.', { status: 415 });
  }
  const body = parseSafeJson(text);
  c.set('jsonBody', body);
  return body;
}
