/** A response kept for replay: what the first run of a request answered. */
export interface StoredResponse {
  status: number;
  /** The headers worth replaying (`content-type`, `location`). */
  headers: Record<string, string>;
  body: string;
}

/**
 * The outcome of {@link IdempotencyStore.begin}:
 * - `new`: the caller owns the key and runs the handler, then calls `complete` or `release`;
 * - `replay`: the same request already completed; answer with its stored response;
 * - `conflict`: the key was used with a different payload (422);
 * - `in_flight`: the same key is running right now (409).
 */
export type BeginResult =
  | { state: 'new' }
  | { state: 'replay'; response: StoredResponse }
  | { state: 'conflict' }
  | { state: 'in_flight' };

/**
 * Where idempotency records live. `key` is already the caller-scoped lookup key
 * (docs/security.md#idempotency-is-keyed-by-caller), a hash; `fingerprint` is a hash of the decrypted
 * canonical body. `begin` must be atomic: of any number of concurrent calls with one key, exactly one gets
 * `new`.
 *
 * Implementations: in memory (one process), the database (unique key + `INSERT ... ON CONFLICT`), and a
 * NATS KV bucket for gateways that share state.
 */
export interface IdempotencyStore {
  begin(key: string, fingerprint: string, ttlMs: number): Promise<BeginResult>;
  /** Stores the response of a `new` key; later `begin` calls with the same fingerprint replay it. */
  complete(key: string, response: StoredResponse): Promise<void>;
  /** Forgets a `new` key whose run must not be remembered (handler threw, 401, 429, 5xx). */
  release(key: string): Promise<void>;
}

/** How long a `new` key may stay in flight before another request may take it over (a crashed run). */
export const IN_FLIGHT_TIMEOUT_MS = 5 * 60_000;
