import { createHash } from 'node:crypto';
import type { KeyValueStore } from '../../bus/bus';
import { PlatformError } from '../../http/errors';
import {
  type BeginResult,
  type IdempotencyStore,
  IN_FLIGHT_TIMEOUT_MS,
  type StoredResponse,
} from './idempotency-store';

/** One idempotency record as stored in the bucket. */
export interface IdempotencyRecord {
  fingerprint: string;
  startedAt: number;
  expiresAt: number;
  response?: StoredResponse;
}

/** How many compare-and-set rounds a call makes before giving up on a key other writers keep changing. */
const MAX_ROUNDS = 5;

function hasCode(err: unknown, code: string): boolean {
  return (err as { code?: unknown } | null)?.code === code;
}

/**
 * The {@link IdempotencyStore} several gateways share (MACROSERVICE): records live in a KV bucket (NATS
 * JetStream KV in production), so a duplicate that a load balancer sends to another gateway is still a
 * replay. Atomicity comes from the bucket's compare-and-set: the first writer wins `create`; taking over a
 * stale record and storing the response are `update`s checked against the revision just read, so of any
 * number of concurrent `begin` calls with one key exactly one gets `new`.
 *
 * Keys are SHA-256 hex of the caller-scoped lookup key (KV keys allow a restricted alphabet). The bucket's
 * TTL (`security.idempotency.ttl_seconds`) removes old records; `expiresAt` in the record enforces the TTL
 * a caller asked for when it is shorter.
 */
export class KvIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly store: KeyValueStore<IdempotencyRecord>,
    private readonly now: () => number = Date.now,
  ) {}

  async begin(key: string, fingerprint: string, ttlMs: number): Promise<BeginResult> {
    return unavailableOnError(() => this.#begin(key, fingerprint, ttlMs));
  }

  async complete(key: string, response: StoredResponse): Promise<void> {
    return unavailableOnError(() => this.#complete(key, response));
  }

  async release(key: string): Promise<void> {
    return unavailableOnError(() => this.store.delete(kvKey(key)));
  }

  async #begin(key: string, fingerprint: string, ttlMs: number): Promise<BeginResult> {
    const k = kvKey(key);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = this.now();
      const fresh: IdempotencyRecord = { fingerprint, startedAt: now, expiresAt: now + ttlMs };
      try {
        await this.store.create(k, fresh);
        return { state: 'new' };
      } catch (err) {
        if (!hasCode(err, 'kv_key_exists')) throw err;
      }
      const current = await this.store.get(k);
      if (!current) continue; // released or expired in between: try to create again
      const record = current.value;
      const stale =
        record.expiresAt <= now || (!record.response && record.startedAt + IN_FLIGHT_TIMEOUT_MS <= now);
      if (stale) {
        try {
          await this.store.update(k, fresh, current.revision);
          return { state: 'new' };
        } catch (err) {
          if (!hasCode(err, 'kv_revision_mismatch')) throw err;
          continue; // another gateway took it over first
        }
      }
      if (record.fingerprint !== fingerprint) return { state: 'conflict' };
      if (!record.response) return { state: 'in_flight' };
      return { state: 'replay', response: record.response };
    }
    return { state: 'in_flight' };
  }

  async #complete(key: string, response: StoredResponse): Promise<void> {
    const k = kvKey(key);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const current = await this.store.get(k);
      if (!current) return; // expired: nothing to complete
      try {
        await this.store.update(k, { ...current.value, response }, current.revision);
        return;
      } catch (err) {
        if (!hasCode(err, 'kv_revision_mismatch')) throw err;
      }
    }
  }
}

/**
 * While the bus is unreachable an idempotent request cannot be checked, so it is refused with 503
 * `idempotency_unavailable` (retry later) rather than run unchecked or failed as a 500.
 */
async function unavailableOnError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    if ((cause as Error)?.name === 'PlatformError') throw cause;
    throw new PlatformError('idempotency_unavailable', 'Idempotency records are unavailable; retry later.', {
      status: 503,
      headers: { 'Retry-After': '1' },
      cause,
    });
  }
}

function kvKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
