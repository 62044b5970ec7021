import type { Context, MiddlewareHandler } from 'hono';
import { IDEMPOTENCY_HEADER, isMutating } from '../../src/protocol';
import { type PresentedCredential, presentedCredential } from '../auth/credentials';
import { sha256 } from '../auth/digest';
import type { AppEnv, Principal } from '../http/env';
import { PlatformError } from '../http/errors';
import { requestHeader } from '../http/node-request';
import { readJsonBody } from '../http/read-body';
import { rolesOf } from '../permissions/routes';
import type { IdempotencyStore, StoredResponse } from '../security/idempotency/idempotency-store';
import { mediaType } from './payload-decryption';
import { type ChainStep, type StepOutcome, stepMiddleware } from './step';

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** How long a completed response is replayed (`security.idempotency.ttl_seconds`), in milliseconds. */
  ttlMs: number;
  /**
   * How long a duplicate waits for the run in flight with its key before it answers 409
   * `idempotency_in_flight` (see {@link idempotencyWaitMs}); default 0, answer at once.
   */
  waitMs?: number;
  /**
   * Where the caller-scoped lookup key comes from:
   * - `caller` (default): computed here from the key, method, path and credential hash;
   * - `signed`: the one a MACROSERVICE gateway computed and signed (`c.get('idempotencyLookup')`, set by
   *   trustGateway), so a service keeps the records of the writes it stores.
   */
  scope?: 'caller' | 'signed';
  /**
   * A MACROSERVICE gateway: true for a request that goes on to a service. Its key is checked and its lookup
   * key computed here (`c.get('idempotencyLookup')`, signed by the forwarding), but the record is kept by the
   * service, in the transaction of its write.
   */
  passOn?: (c: Context<AppEnv>) => boolean;
  /**
   * Resolves the caller's credential as AuthMiddleware will (the AuthService), so that a kept answer is
   * replayed only to a credential still valid and to the rights it was made for (see {@link idempotencyStep}).
   * Without it (a service behind a gateway), the principal the gateway signed is used.
   */
  resolve?: (credential: PresentedCredential) => Promise<Principal | undefined>;
  /** The principal `resolve` would give when known without I/O (the AuthService's cache). */
  cached?: (credential: PresentedCredential) => Principal | undefined;
}

/**
 * How long a duplicate waits for the run in flight: half the gateway's upstream deadline
 * (`desk.upstream_timeout_ms`), so a duplicate a gateway forwards gets its answer before the gateway gives up.
 */
export function idempotencyWaitMs(upstreamTimeoutMs: number): number {
  return Math.floor(upstreamTimeoutMs / 2);
}

/** How often a duplicate looks again for a run that another process has in flight. */
const POLL_MS = 50;

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
async function payloadPrint(c: Context<AppEnv>): Promise<string> {
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
 * The payload's fingerprint with the caller's roles: an answer kept for one set of rights (a record revealed
 * in clear to a reader with `read_pii`) is not replayed to the same credential after its roles changed.
 */
async function fingerprint(c: Context<AppEnv>, principal: Principal | undefined): Promise<string> {
  const payload = await payloadPrint(c);
  // A record write's answer carries in clear only the flagged values its request carried (a write answer is
  // no reveal, backend/data/write-answer.ts): replayed whatever the caller's roles now are.
  if (c.req.path.startsWith(RESOURCE_PREFIX)) return payload;
  return sha256(`${payload}\n${[...rolesOf(principal)].sort().join('\n')}`);
}

/** The data API's record writes. */
const RESOURCE_PREFIX = '/api/resource/';

/** One run this process began: who owns the key, and the waiters woken when it ends. */
interface Run {
  lookup: string;
  owner: string;
  claim: { completed: boolean };
  done: Promise<void>;
  end: () => void;
}

/** The caller-scoped lookup key of docs/security.md#idempotency-is-keyed-by-caller. */
function callerLookup(c: Context<AppEnv>, key: string): string | undefined {
  const caller = c.get('credentialHash');
  if (!caller) return undefined;
  return sha256([key, c.req.method, c.req.path, caller].join('\n'));
}

function inFlight(): PlatformError {
  return new PlatformError('idempotency_in_flight', 'A request with this Idempotency-Key is running.', {
    status: 409,
    headers: { 'Retry-After': '1' },
  });
}

/**
 * IdempotencyMiddleware (priority 30, docs/security.md#middleware-chain): `Idempotency-Key` on
 * POST/PUT/PATCH/DELETE (ignored on safe methods and on requests without a credential, which have no caller
 * to scope the key to).
 *
 * The lookup key hashes the Idempotency-Key, method, path and the credential hash, so a key reused by another
 * caller never sees the first caller's response (rule 8; this runs before Auth). The first run owns the key;
 * the same key with the same payload replays its response with `Idempotent-Replayed: true`; a different
 * payload is 422 `idempotency_key_reused`; a duplicate arriving while the first runs waits for it (up to
 * `waitMs`) and replays its answer, or then answers 409 `idempotency_in_flight` with `Retry-After: 1`.
 * Running before Auth, it resolves the credential itself first (`resolve`, the AuthService's, its cache
 * first): a revoked API key or an ended session is never replayed an answer (nothing is looked up; Auth then
 * answers 401). Outside the data API's record writes (whose answers reveal nothing), the fingerprint holds
 * the caller's roles with the payload, so an answer kept for other rights (an RPC method's record revealed
 * in clear before `read_pii` was taken away) is 422 `idempotency_key_reused` rather than replayed.
 * A record write stores its answer in its own transaction (`c.get('idempotency')`, backend/data/atomic-write.ts);
 * any other handler's answer is stored after it. A handler that throws, a 401, a 429 or a 5xx releases the
 * key instead of storing it, so the client may retry. A key that is empty, longer than 255 characters or not
 * printable ASCII is 400 `invalid_idempotency_key`. Synchronous for a request without the header.
 */
export function idempotencyStep(options: IdempotencyOptions): ChainStep {
  const { store, ttlMs, waitMs = 0, scope = 'caller', passOn, resolve, cached } = options;
  /** The run each request began here, until it completes or is released. */
  const begun = new WeakMap<Context<AppEnv>, Run>();
  /** This process's runs in flight by lookup key: a duplicate waits on `done` instead of polling. */
  const running = new Map<string, Run>();

  /**
   * The caller as AuthMiddleware will find it: the principal already set (a service trusts the one its
   * gateway signed), else the credential resolved; undefined for a credential no longer valid.
   */
  async function caller(c: Context<AppEnv>): Promise<Principal | undefined> {
    const set = c.get('principal');
    if (set || !resolve) return set;
    const credential = presentedCredential(c);
    if (credential === undefined) return undefined;
    return cached?.(credential) ?? resolve(credential);
  }

  async function begin(c: Context<AppEnv>, lookup: string): Promise<StepOutcome> {
    const principal = await caller(c);
    // A revoked key or an ended session: nothing is replayed nor kept; AuthMiddleware answers 401.
    if (principal === undefined && resolve) return undefined;
    const print = await fingerprint(c, principal);
    const deadline = Date.now() + waitMs;
    for (;;) {
      const result = await store.begin(lookup, print, ttlMs);
      switch (result.state) {
        case 'new':
          start(c, lookup, result.owner);
          return undefined;
        case 'replay':
          return replay(result.response);
        case 'conflict':
          throw new PlatformError(
            'idempotency_key_reused',
            'This Idempotency-Key was used with a different payload, or before your roles changed.',
            { status: 422 },
          );
      }
      const left = deadline - Date.now();
      if (left <= 0) throw inFlight();
      // The run is this process's: woken when it ends. Another process's: looked at again shortly.
      const local = running.get(lookup)?.done;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, local ? left : Math.min(left, POLL_MS));
        local?.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  function start(c: Context<AppEnv>, lookup: string, owner: string): void {
    let end!: () => void;
    const done = new Promise<void>((resolve) => {
      end = resolve;
    });
    const run: Run = { lookup, owner, claim: { completed: false }, done, end };
    begun.set(c, run);
    running.set(lookup, run);
    const claim = run.claim;
    c.set('idempotency', {
      get completed() {
        return claim.completed;
      },
      async complete(response, tx) {
        if (!(await store.complete(lookup, owner, response, tx))) throw inFlight();
        claim.completed = true;
      },
    });
  }

  async function finish(c: Context<AppEnv>, run: Run): Promise<void> {
    const status = c.res.status;
    if (c.error || status === 401 || status === 429 || status >= 500) {
      // Releasing never forgets a stored answer: a write whose transaction committed keeps it for retries.
      await store.release(run.lookup, run.owner);
      return;
    }
    if (run.claim.completed) return;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = c.res.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    await store.complete(run.lookup, run.owner, { status, headers, body: await c.res.clone().text() });
  }

  /** Ends `c`'s run, whatever `settle` does: the waiters look at the store again. */
  async function ending(c: Context<AppEnv>, settle: (run: Run) => Promise<void>): Promise<void> {
    const run = begun.get(c);
    if (run === undefined) return;
    begun.delete(c);
    try {
      await settle(run);
    } finally {
      if (running.get(run.lookup) === run) running.delete(run.lookup);
      run.end();
    }
  }

  return {
    name: 'idempotency',
    enter(c) {
      if (!isMutating(c.req.method)) return undefined;
      if (scope === 'signed') {
        const lookup = c.get('idempotencyLookup');
        return lookup === undefined ? undefined : begin(c, lookup);
      }
      const key = requestHeader(c, IDEMPOTENCY_FIELD);
      if (key === undefined) return undefined;
      if (!isValidIdempotencyKey(key)) {
        throw new PlatformError(
          'invalid_idempotency_key',
          'Idempotency-Key must be 1-255 printable ASCII characters.',
          { status: 400 },
        );
      }
      const lookup = callerLookup(c, key);
      if (lookup === undefined) return undefined;
      if (passOn?.(c)) {
        c.set('idempotencyLookup', lookup);
        return undefined;
      }
      return begin(c, lookup);
    },
    leave(c) {
      if (!begun.has(c)) return undefined;
      return ending(c, (run) => finish(c, run));
    },
    abort(c) {
      if (!begun.has(c)) return undefined;
      return ending(c, (run) => store.release(run.lookup, run.owner));
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
