import type { KeyValueStore } from '../bus/bus';
import { PlatformError } from '../http/errors';

/** The sign-in attempts of one account or one client address. */
export interface AttemptState {
  /** Attempts counted since `firstAt` and not yet cleared by a success. */
  failures: number;
  /** When the first counted attempt happened (epoch ms). */
  firstAt: number;
  /** Until when sign-ins are refused (epoch ms); 0 when not locked. */
  lockedUntil: number;
}

/**
 * Where attempt counters live. `change` applies `update` atomically (compare-and-set), so several gateways
 * sharing one store count every attempt once. `update` gets the current state (undefined when none) and
 * returns the new one (undefined deletes it).
 */
export interface AttemptStore {
  /** The current state of a key, or undefined. */
  get(key: string): Promise<AttemptState | undefined>;
  change(
    key: string,
    update: (current: AttemptState | undefined) => AttemptState | undefined,
  ): Promise<AttemptState | undefined>;
}

/** Counters in this process: one gateway (MONOLITH). Entries are dropped once stale. */
export class MemoryAttemptStore implements AttemptStore {
  readonly #states = new Map<string, AttemptState>();

  constructor(private readonly staleAfterMs = 60 * 60_000) {}

  async get(key: string): Promise<AttemptState | undefined> {
    return this.#states.get(key);
  }

  async change(key: string, update: (current: AttemptState | undefined) => AttemptState | undefined) {
    const next = update(this.#states.get(key));
    if (next) this.#states.set(key, next);
    else this.#states.delete(key);
    if (this.#states.size > 100_000) this.#prune();
    return next;
  }

  #prune(): void {
    const now = Date.now();
    for (const [key, s] of this.#states) {
      if (s.lockedUntil < now && now - s.firstAt > this.staleAfterMs) this.#states.delete(key);
    }
  }
}

const MAX_CAS_TRIES = 8;

/**
 * 503 `unavailable` with `Retry-After`: the shared counters cannot be read or written (NATS down or
 * restarting). A sign-in is then refused for now rather than let through uncounted, and never a 500.
 */
function countersUnavailable(cause: unknown): PlatformError {
  return new PlatformError('unavailable', 'Sign-in is unavailable for a moment; try again.', {
    status: 503,
    headers: { 'Retry-After': '5' },
    cause,
  });
}

/** Runs `work`, turning a failure of the bus (anything but a compare-and-set conflict) into 503. */
async function onBus<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'kv_revision_mismatch' || code === 'kv_key_exists') throw err;
    if ((err as { status?: number }).status === 503) throw err;
    throw countersUnavailable(err);
  }
}

/**
 * Counters in a bus key-value bucket (NATS KV in MACROSERVICE), shared by every gateway. Each change is a
 * compare-and-set on the key's revision, retried when another gateway wrote in between. The bucket's TTL
 * forgets idle counters. When the bus cannot answer, a sign-in is 503 `unavailable` with `Retry-After`.
 */
export class KvAttemptStore implements AttemptStore {
  constructor(private readonly kv: KeyValueStore<AttemptState>) {}

  async get(key: string): Promise<AttemptState | undefined> {
    return (await onBus(() => this.kv.get(key)))?.value;
  }

  async change(key: string, update: (current: AttemptState | undefined) => AttemptState | undefined) {
    for (let attempt = 0; attempt < MAX_CAS_TRIES; attempt++) {
      const entry = await onBus(() => this.kv.get(key));
      const next = update(entry?.value);
      try {
        await onBus(async () => {
          if (!next) {
            if (entry) await this.kv.delete(key);
          } else if (entry) {
            await this.kv.update(key, next, entry.revision);
          } else {
            await this.kv.create(key, next);
          }
        });
        return next;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code !== 'kv_revision_mismatch' && code !== 'kv_key_exists') throw err;
      }
    }
    throw new PlatformError('unavailable', 'The sign-in counters are busy; try again.', {
      status: 503,
      headers: { 'Retry-After': '1' },
    });
  }
}
