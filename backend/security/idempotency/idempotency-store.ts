import type { Database } from '../../db/database';

/** A response kept for replay: what the first run of a request answered. */
export interface StoredResponse {
  status: number;
  /** The headers worth replaying (`content-type`, `location`). */
  headers: Record<string, string>;
  body: string;
}

/** The handle of an open database transaction, as `Database.transaction` passes it. */
export type Transaction = Pick<Database, 'query'>;

/**
 * The outcome of {@link IdempotencyStore.begin}:
 * - `new`: the caller owns the key (as `owner`) and runs the handler, then calls `complete` or `release`;
 * - `replay`: the same request already completed; answer with its stored response;
 * - `conflict`: the key was used with a different payload (422);
 * - `in_flight`: the same key is running right now (the caller waits, then 409).
 */
export type BeginResult =
  | { state: 'new'; owner: string }
  | { state: 'replay'; response: StoredResponse }
  | { state: 'conflict' }
  | { state: 'in_flight' };

/**
 * Where idempotency records live. `key` is already the caller-scoped lookup key
 * (docs/security.md#idempotency-is-keyed-by-caller), a hash; `fingerprint` is a hash of the decrypted
 * canonical body. `begin` must be atomic: of any number of concurrent calls with one key, exactly one gets
 * `new`. `owner` is what that `new` answered: a run whose key was taken over (it ran past
 * {@link IN_FLIGHT_TIMEOUT_MS}) can neither complete nor release the new owner's key.
 *
 * Implementations: the database (unique key + `INSERT ... ON CONFLICT`; the one every server uses) and
 * memory (the offline mocks, tests).
 */
export interface IdempotencyStore {
  begin(key: string, fingerprint: string, ttlMs: number): Promise<BeginResult>;
  /**
   * Stores the response of a `new` key; later `begin` calls with the same fingerprint replay it. With `tx`
   * the response is written in that transaction, so it commits or rolls back with the write it answers.
   * False when the key is no longer `owner`'s (nothing stored).
   */
  complete(key: string, owner: string, response: StoredResponse, tx?: Transaction): Promise<boolean>;
  /**
   * Forgets `owner`'s key whose run must not be remembered (handler threw, 401, 429, 5xx), while it is still
   * in flight: an answer already stored (its write committed) stays, so a retry replays it.
   */
  release(key: string, owner: string): Promise<void>;
}

/**
 * The key a request began, as the data routes see it (`c.get('idempotency')`): they complete it in the
 * transaction of the record write it guards (backend/data/atomic-write.ts).
 */
export interface IdempotencyClaim {
  /** Stores `response` in `tx` (or on its own without one); throws when the key is no longer this run's. */
  complete(response: StoredResponse, tx?: Transaction): Promise<void>;
  /** True once {@link complete} stored the response: nothing is left to store afterwards. */
  readonly completed: boolean;
}

/** How long a `new` key may stay in flight before another request may take it over (a crashed run). */
export const IN_FLIGHT_TIMEOUT_MS = 5 * 60_000;
