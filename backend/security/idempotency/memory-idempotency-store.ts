import {
  type BeginResult,
  type IdempotencyStore,
  IN_FLIGHT_TIMEOUT_MS,
  type StoredResponse,
} from './idempotency-store';

interface Entry {
  fingerprint: string;
  response?: StoredResponse;
  startedAt: number;
  expiresAt: number;
}

/**
 * Idempotency records in a `Map`, for one process (tests, single-process monolith without a database).
 * `begin` is synchronous up to its return, so concurrent calls cannot both get `new`.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Number of live records (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  async begin(key: string, fingerprint: string, ttlMs: number): Promise<BeginResult> {
    const now = this.#now();
    const entry = this.#entries.get(key);
    const stale =
      entry && (entry.expiresAt <= now || (!entry.response && entry.startedAt + IN_FLIGHT_TIMEOUT_MS <= now));
    if (!entry || stale) {
      this.#entries.set(key, { fingerprint, startedAt: now, expiresAt: now + ttlMs });
      if (this.#entries.size % 1024 === 0) this.#sweep(now);
      return { state: 'new' };
    }
    if (entry.fingerprint !== fingerprint) return { state: 'conflict' };
    if (!entry.response) return { state: 'in_flight' };
    return { state: 'replay', response: entry.response };
  }

  async complete(key: string, response: StoredResponse): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry) entry.response = response;
  }

  async release(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
}
