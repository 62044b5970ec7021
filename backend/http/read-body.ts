import type { Context } from 'hono';
import type { AppEnv } from './env';
import { PlatformError } from './errors';
import { requestHeader } from './node-request';
import { parseSafeJson } from './safe-json';

/**
 * The JSON body of a request: the plaintext PayloadDecryptionMiddleware already produced (decrypted JWE or
 * checked JSON), else the raw body parsed safely. A body that is not `application/json` is 415; an empty
 * body is `{}`. The result is memoised on the context so every reader (idempotency, handler) sees the same.
 */
export async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  const cached = c.get('jsonBody');
  if (cached !== undefined) return cached;
  const text = await c.req.text();
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
