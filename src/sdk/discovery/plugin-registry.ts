/**
 * The PluginRegistry of docs/sdk.md#discovery: the local cache of DocType -> owning service, a `Map`
 * with change events. Entries expire after `maxAgeMs` so a DocType that moved to another service is looked up
 * again; the DiscoveryClient hydrates it from every gateway answer.
 */
import { Subscribable } from '../store';

/** Called after any change of the registry. */
export type RegistryListener = () => void;

interface Entry {
  owner: string;
  expiresAt: number;
}

/** Options of {@link PluginRegistry}. */
export interface PluginRegistryOptions {
  /** Lifetime of an entry in milliseconds; default infinite. */
  maxAgeMs?: number;
  /** Clock, injectable for tests; default `Date.now`. */
  now?: () => number;
}

/** DocType -> owner cache; `subscribe` (inherited) hears every change. */
export class PluginRegistry extends Subscribable<RegistryListener> {
  readonly #entries = new Map<string, Entry>();
  maxAgeMs: number;
  #now: () => number;

  constructor(options: PluginRegistryOptions = {}) {
    super();
    this.maxAgeMs = options.maxAgeMs ?? Number.POSITIVE_INFINITY;
    this.#now = options.now ?? Date.now;
  }

  /** The owner of `docType` while its entry is fresh, else `undefined`. */
  get(docType: string): string | undefined {
    const entry = this.#entries.get(docType);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(docType);
      return undefined;
    }
    return entry.owner;
  }

  /** True when `docType` has a fresh entry. */
  has(docType: string): boolean {
    return this.get(docType) !== undefined;
  }

  /** Records owners (`docType -> service`) and notifies once. */
  setMany(owners: Iterable<readonly [string, string]>): void {
    const expiresAt = this.#now() + this.maxAgeMs;
    let changed = false;
    for (const [docType, owner] of owners) {
      const previous = this.#entries.get(docType);
      if (previous?.owner !== owner) changed = true;
      this.#entries.set(docType, { owner, expiresAt });
    }
    if (changed) this.notify();
  }

  /** Records one owner. */
  set(docType: string, owner: string): void {
    this.setMany([[docType, owner]]);
  }

  /** Every fresh entry as a plain object (DocType -> owner). */
  toRecord(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const docType of [...this.#entries.keys()]) {
      const owner = this.get(docType);
      if (owner !== undefined) out[docType] = owner;
    }
    return out;
  }

  /** Number of entries held (fresh or not yet swept). */
  get size(): number {
    return this.#entries.size;
  }

  /** Drops every entry. */
  clear(): void {
    if (this.#entries.size === 0) return;
    this.#entries.clear();
    this.notify();
  }
}
