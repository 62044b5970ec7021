/**
 * Remembers token ids (`jti`) for a while. `add` is atomic: of several callers adding the same id inside its
 * lifetime exactly one gets `true`. MONOLITH keeps it in memory; MACROSERVICE gateways share one in NATS KV
 * so a token replayed to another gateway is refused too.
 */
export interface SeenSet {
  /** Records `id` for `ttlMs`; true when it was not already recorded. */
  add(id: string, ttlMs: number): Promise<boolean>;
}

/** Options of {@link MemorySeenSet}. */
export interface MemorySeenSetOptions {
  now?: () => number;
  /** Most ids held at once; past it the oldest are dropped first (they are the closest to expiring). */
  maxEntries?: number;
}

/** A {@link SeenSet} in this process's memory, expired ids dropped as new ones arrive. */
export class MemorySeenSet implements SeenSet {
  readonly #expiries = new Map<string, number>();
  readonly #now: () => number;
  readonly #max: number;

  constructor(options: MemorySeenSetOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#max = options.maxEntries ?? 1_000_000;
  }

  async add(id: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    const expiry = this.#expiries.get(id);
    if (expiry !== undefined && expiry > now) return false;
    this.#expiries.delete(id);
    this.#expiries.set(id, now + ttlMs);
    this.#prune(now);
    return true;
  }

  #prune(now: number): void {
    // Insertion order is expiry order for one ttl; stop at the first live id.
    for (const [id, expiry] of this.#expiries) {
      if (expiry > now && this.#expiries.size <= this.#max) break;
      this.#expiries.delete(id);
    }
  }
}

/**
 * Several {@link SeenSet}s as one: an id is new only when it is new to each of them, asked in order (a later
 * one is not asked once an earlier one has seen it). A MACROSERVICE gateway asks its database first, which
 * neither a restart nor the loss of the NATS store can empty, then the NATS KV bucket every gateway shares.
 */
export class EverySeenSet implements SeenSet {
  constructor(private readonly sets: readonly SeenSet[]) {}

  async add(id: string, ttlMs: number): Promise<boolean> {
    for (const set of this.sets) if (!(await set.add(id, ttlMs))) return false;
    return true;
  }
}
