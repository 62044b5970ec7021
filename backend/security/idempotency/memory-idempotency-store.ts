import {
  type BeginResult,
  type IdempotencyStore,
  IN_FLIGHT_TIMEOUT_MS,
  type StoredResponse,
} from './idempotency-store';

interface Entry {
  owner: string;
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
  #owners = 0;

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
      const owner = `${now}-${++this.#owners}`;
      this.#entries.set(key, { owner, fingerprint, startedAt: now, expiresAt: now + ttlMs });
      if (this.#entries.size % 1024 === 0) this.#sweep(now);
      return { state: 'new', owner };
    }
    if (entry.fingerprint !== fingerprint) return { state: 'conflict' };
    if (!entry.response) return { state: 'in_flight' };
    return { state: 'replay', response: entry.response };
  }

  /** Stores the response (there is no transaction in memory: `tx` is not used). */
  async complete(key: string, owner: string, response: StoredResponse): Promise<boolean> {
    const entry = this.#entries.get(key);
    if (entry?.owner !== owner || entry.response) return false;
    entry.response = response;
    return true;
  }

  async release(key: string, owner: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry?.owner === owner && !entry.response) this.#entries.delete(key);
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
}
