import type { KeyValueStore } from '../../bus/bus';
import { PlatformError } from '../../http/errors';
import type { SeenSet } from './seen-set';

/** KV bucket of the JWE ids MACROSERVICE gateways have seen (TTL: the replay window plus twice the skew). */
export const SEEN_JWE_BUCKET = 'platform_jwe_seen';

/**
 * The {@link SeenSet} several gateways share (MACROSERVICE): one key per `jti` in a KV bucket whose TTL
 * outlasts the replay window, written with the bucket's atomic `create`, so of two gateways receiving the same
 * token exactly one accepts it. When the bus cannot answer, the request is refused with 503 `unavailable`
 * rather than accepted unchecked.
 */
export class KvSeenSet implements SeenSet {
  constructor(private readonly store: KeyValueStore<number>) {}

  async add(id: string): Promise<boolean> {
    try {
      await this.store.create(id, Date.now());
      return true;
    } catch (err) {
      if ((err as PlatformError).code === 'kv_key_exists') return false;
      throw new PlatformError('unavailable', 'Encrypted requests cannot be checked right now; retry later.', {
        status: 503,
        headers: { 'Retry-After': '1' },
        cause: err,
      });
    }
  }
}
