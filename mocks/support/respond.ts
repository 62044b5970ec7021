/**
 * Answers of the mock handlers in the platform's one error shape (`{ error: { code, message, fields? } }`),
 * built with the backend's own `errorBody`, and the request-body reading every mutating handler shares:
 * `application/jose` is decrypted with the key ring, plaintext where the policy requires encryption is 415
 * (docs/security.md#the-server-enforces-the-mode), and JSON is parsed with the backend's prototype- and
 * depth-safe parser.
 */
import { HttpResponse } from 'msw';
import { errorBody, PlatformError } from '../../backend/http/errors';
import { parseSafeJson } from '../../backend/http/safe-json';
import { JOSE_CONTENT_TYPE } from '../../src/protocol';
import type { MockEnvironment } from './environment';

/** The JSON error answer of `err`: a PlatformError keeps its status and code, anything else is a 500. */
export function errorResponse(err: unknown): Response {
  const e = err as Partial<PlatformError>;
  if (err instanceof Error && err.name === 'PlatformError' && typeof e.code === 'string') {
    return HttpResponse.json(errorBody(e.code, err.message, e.fields), {
      status: e.status ?? 500,
      headers: { 'Cache-Control': 'no-store' },
    });
  }
  return HttpResponse.json(errorBody('internal_error', 'The server could not complete the request.'), {
    status: 500,
  });
}

/** Runs a handler body, turning a thrown PlatformError into its JSON answer. */
export async function answer(run: () => Promise<Response> | Response): Promise<Response> {
  try {
    return await run();
  } catch (err) {
    return errorResponse(err);
  }
}

/** The path of a request (what the JWE's `htu` binds to). */
export function pathOf(request: Request): string {
  return new URL(request.url).pathname;
}

/** The JSON body of a request after the decryption rules; an empty body is `{}`. */
export async function readBody(env: MockEnvironment, request: Request): Promise<unknown> {
  const text = await request.text();
  const method = request.method.toUpperCase();
  const path = pathOf(request);
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === JOSE_CONTENT_TYPE) {
    if (env.policy.mode === 'disabled') {
      throw new PlatformError(
        'encryption_disabled',
        'Payload encryption is disabled; send application/json.',
        {
          status: 415,
        },
      );
    }
    return env.keyRing.decrypt(text.trim(), method, path);
  }
  if (text.trim() !== '' && env.policy.requiresEncryption(method, path)) {
    throw new PlatformError(
      'encryption_required',
      'This request must be sent encrypted (application/jose).',
      {
        status: 415,
      },
    );
  }
  if (text.trim() === '') return {};
  if (type !== 'application/json') {
    throw new PlatformError('unsupported_media_type', 'Send the body as application/json.', { status: 415 });
  }
  return parseSafeJson(text);
}
