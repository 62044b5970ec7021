import type { Context, MiddlewareHandler } from 'hono';
import { JOSE_CONTENT_TYPE } from '../../src/protocol';
import { isForwardedPath } from '../gateway/forwarded-paths';
import type { AppEnv } from '../http/env';
import { type ErrorCode, PlatformError } from '../http/errors';
import { requestHeader } from '../http/node-request';
import { readLimitedBody } from '../http/read-limited-body';
import type { EncryptionPolicy } from '../security/encryption-policy';
import { decryptRequestJwe, inspectSealedJwe } from '../security/jwe/decrypt-request-jwe';
import { keyNotForService } from '../security/jwe/errors';
import { parseDecryptedJson } from '../security/jwe/parse-decrypted-json';
import type { KeyStore } from '../security/keys/key-store';
import type { ReplayGuard } from '../security/replay/replay-guard';
import { type ChainStep, stepMiddleware } from './step';

/** Options of {@link payloadDecryption}. */
export interface PayloadDecryptionOptions {
  policy: EncryptionPolicy;
  keys: KeyStore;
  /** Refuses a token too old or already used; checked after decryption. */
  replay?: Pick<ReplayGuard, 'check'>;
  /** Largest `application/jose` body (`payload_encryption.max_jwe_bytes`); larger is 413 before any crypto. */
  maxJweBytes: number;
  /** Largest plaintext body read to decide whether a refused plaintext is empty (`server.max_body_bytes`). */
  maxBodyBytes: number;
  /**
   * A MACROSERVICE gateway: a JWE whose `kid` names a service (`svc:<service>:...`) is checked without being
   * opened and kept for forwarding to that service (`sealedJwe`); its `jti` is pre-checked against the
   * replay window. Default false (MONOLITH, a service: such a kid is simply not held, `unknown_key`).
   */
  forwardSealed?: boolean;
}

/** The media type of a `Content-Type` header, lower-cased and without parameters. */
export function mediaType(header: string | undefined): string {
  if (header === undefined) return '';
  const semicolon = header.indexOf(';');
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder();

/**
 * The path of an absolute URL as sent (still percent-encoded, without query or fragment). The request URL
 * is already normalised by the server, so slicing it gives what `new URL(url).pathname` would.
 */
function pathOfUrl(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  let end = url.length;
  const query = url.indexOf('?', start);
  if (query !== -1) end = query;
  const hash = url.indexOf('#', start);
  if (hash !== -1 && hash < end) end = hash;
  return url.slice(start, end);
}

function unsupported(code: ErrorCode, message: string): PlatformError {
  return new PlatformError(code, message, { status: 415 });
}

/** Reads, decrypts and parses an `application/jose` body; the handler reads the plaintext from `jsonBody`. */
async function decrypt(c: Context<AppEnv>, options: PayloadDecryptionOptions): Promise<undefined> {
  const bytes = await readLimitedBody(c, options.maxJweBytes);
  const token = latin1.decode(bytes);
  const target = { method: c.req.method, paths: [pathOfUrl(c.req.url), c.req.path] };
  const sealed = options.forwardSealed ? inspectSealedJwe(token, target) : undefined;
  if (sealed) {
    // Sent to a route this gateway answers itself, it can go nowhere: refused before its jti is recorded,
    // also where the handler would not read the body (sign-out), which would otherwise run with it.
    if (!isForwardedPath(c.req.path)) throw keyNotForService();
    // Encrypted to the owning service: this gateway cannot and does not open it. Its replay pre-check
    // refuses a token already forwarded by any gateway; the service runs the full check after decrypting.
    await options.replay?.check(sealed.header);
    c.set('sealedJwe', { token, service: sealed.service });
    return undefined;
  }
  const { plaintext, header } = await decryptRequestJwe(token, target, options.keys);
  await options.replay?.check(header);
  c.set('jsonBody', parseDecryptedJson(plaintext));
  return undefined;
}

/** Refuses a non-empty plaintext body where the mode requires encryption. */
async function refusePlaintext(c: Context<AppEnv>, maxBodyBytes: number): Promise<undefined> {
  const bytes = await readLimitedBody(c, maxBodyBytes);
  if (utf8.decode(bytes).trim() !== '') {
    throw unsupported(
      'encryption_required',
      `This request must be encrypted: send a compact JWE as ${JOSE_CONTENT_TYPE}.`,
    );
  }
  return undefined;
}

/**
 * PayloadDecryptionMiddleware (priority 15, docs/security.md#middleware-chain; the rules of
 * docs/security.md#rules).
 *
 * - An `application/jose` body is size-checked, decrypted (compact JWE bound to this method and path) and
 *   parsed safely; the handler sees the plaintext JSON through `readJsonBody` (`c.set('jsonBody')`). In
 *   `disabled` mode such a body is 415 `encryption_disabled`. With `forwardSealed` (a gateway), one
 *   encrypted to a service's key is only checked and kept sealed for forwarding.
 * - A non-empty body of any other type where the mode requires encryption (a selective route, a mutating
 *   request in strict mode, a DocType with flagged fields in metadata mode) is 415 `encryption_required`
 *   before any handler runs. The content type is never sniffed, and nothing in the request can lower the mode.
 *
 * Asynchronous only where it reads a body; a request it lets through without one costs a header read.
 */
export function payloadDecryptionStep(options: PayloadDecryptionOptions): ChainStep {
  return {
    name: 'payloadDecryption',
    enter(c) {
      if (mediaType(requestHeader(c, 'content-type')) === JOSE_CONTENT_TYPE) {
        if (options.policy.mode === 'disabled') {
          throw unsupported('encryption_disabled', 'Payload encryption is disabled; send application/json.');
        }
        return decrypt(c, options);
      }
      const method = c.req.method;
      if (method !== 'GET' && method !== 'HEAD' && options.policy.requiresEncryption(method, c.req.path)) {
        return refusePlaintext(c, options.maxBodyBytes);
      }
      return undefined;
    },
  };
}

/** {@link payloadDecryptionStep} as a Hono middleware of its own. */
export const payloadDecryption = (options: PayloadDecryptionOptions): MiddlewareHandler<AppEnv> =>
  stepMiddleware(payloadDecryptionStep(options));
