import type { Context, MiddlewareHandler } from 'hono';
import { IDEMPOTENCY_HEADER, isMutating } from '../../src/protocol';
import { sha256 } from '../auth/digest';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { requestHeader } from '../http/node-request';
import { readJsonBody } from '../http/read-body';
import type { IdempotencyStore, StoredResponse } from '../security/idempotency/idempotency-store';
import { mediaType } from './payload-decryption';
import { type ChainStep, type StepOutcome, stepMiddleware } from './step';

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** How long a completed response is replayed (`security.idempotency.ttl_seconds`), in milliseconds. */
  ttlMs: number;
}

/** Response header marking a replayed response. */
export const REPLAY_HEADER = 'Idempotent-Replayed';
/** The key's field name as `requestHeader` looks it up. */
const IDEMPOTENCY_FIELD = IDEMPOTENCY_HEADER.toLowerCase();
const REPLAYED_HEADERS = ['content-type', 'location'];

/** A valid key: 1-255 printable ASCII characters (no CR/LF, no control or non-ASCII characters). */
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x20-\x7e]{1,255}$/.test(key);
}

/** JSON with object keys sorted at every level: equal values give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The payload fingerprint (docs/security.md#idempotency-is-keyed-by-caller): the hash of the canonical
 * DECRYPTED body, so a retry that re-encrypts the same plaintext is a replay. Non-JSON bodies are hashed as
 * bytes; a body a gateway keeps sealed for its service by the service's name.
 */
async function fingerprint(c: Context<AppEnv>): Promise<string> {
  // A gateway cannot read a body sealed for a service: any payload for the same service counts as the same,
  // so a retry (re-encrypted) is a replay, and a different payload under a reused key is not detected.
  const sealed = c.get('sealedJwe');
  if (sealed !== undefined) return sha256(`sealed\n${sealed.service}`);
  if (c.get('jsonBody') !== undefined || mediaType(requestHeader(c, 'content-type')) === 'application/json') {
    return sha256(canonicalJson(await readJsonBody(c)));
  }
  return sha256(new Uint8Array(await c.req.arrayBuffer()));
}

/**
 * IdempotencyMiddleware (priority 30, docs/security.md#middleware-chain): `Idempotency-Key` on
 * POST/PUT/PATCH/DELETE (ignored on safe methods and on requests without a credential, which have no caller
 * to scope the key to).
 *
 * The lookup key hashes the Idempotency-Key, method, path and the credential hash, so a key reused by another
 * caller never sees the first caller's response (rule 8; this runs before Auth). The first run stores its
 * response; the same key with the same payload replays it with `Idempotent-Replayed: true`; a different
 * payload is 422 `idempotency_key_reused`; a run still in flight is 409 `idempotency_in_flight`. A handler that
 * throws, a 401, a 429 or a 5xx releases the key instead of storing it, so the client may retry.
 * A key that is empty, longer than 255 characters or not printable ASCII is 400 `invalid_idempotency_key`.
 * Synchronous for a request without the header; the store is awaited only for one with it.
 */
export function idempotencyStep(options: IdempotencyOptions): ChainStep {
  const { store, ttlMs } = options;
  /** The lookup key of each request that began a run here, until it completes or is released. */
  const begun = new WeakMap<Context<AppEnv>, string>();

  async function begin(c: Context<AppEnv>, lookup: string): Promise<StepOutcome> {
    const result = await store.begin(lookup, await fingerprint(c), ttlMs);
    switch (result.state) {
      case 'replay':
        return replay(result.response);
      case 'conflict':
        throw new PlatformError(
          'idempotency_key_reused',
          'This Idempotency-Key was used with a different payload.',
          { status: 422 },
        );
      case 'in_flight':
        throw new PlatformError('idempotency_in_flight', 'A request with this Idempotency-Key is running.', {
          status: 409,
          headers: { 'Retry-After': '1' },
        });
    }
    begun.set(c, lookup);
    return undefined;
  }

  async function finish(c: Context<AppEnv>, lookup: string): Promise<void> {
    const status = c.res.status;
    if (c.error || status === 401 || status === 429 || status >= 500) {
      await store.release(lookup);
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = c.res.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    await store.complete(lookup, { status, headers, body: await c.res.clone().text() });
  }

  return {
    name: 'idempotency',
    enter(c) {
      if (!isMutating(c.req.method)) return undefined;
      const key = requestHeader(c, IDEMPOTENCY_FIELD);
      if (key === undefined) return undefined;
      if (!isValidIdempotencyKey(key)) {
        throw new PlatformError(
          'invalid_idempotency_key',
          'Idempotency-Key must be 1-255 printable ASCII characters.',
          { status: 400 },
        );
      }
      const caller = c.get('credentialHash');
      if (!caller) return undefined;
      return begin(c, sha256([key, c.req.method, c.req.path, caller].join('\n')));
    },
    leave(c) {
      const lookup = begun.get(c);
      if (lookup === undefined) return undefined;
      begun.delete(c);
      return finish(c, lookup);
    },
    abort(c) {
      const lookup = begun.get(c);
      if (lookup === undefined) return undefined;
      begun.delete(c);
      return store.release(lookup);
    },
  };
}

/** {@link idempotencyStep} as a Hono middleware of its own. */
export const idempotency = (options: IdempotencyOptions): MiddlewareHandler<AppEnv> =>
  stepMiddleware(idempotencyStep(options));

function replay(stored: StoredResponse): Response {
  const headers = new Headers(stored.headers);
  headers.set(REPLAY_HEADER, 'true');
  headers.set('Cache-Control', 'no-store');
  return new Response(stored.body, { status: stored.status, headers });
}
