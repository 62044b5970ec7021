import type { Context } from 'hono';
import type { AppEnv } from '../http/env';
import type { DocRecord, RecordStore } from './records';

/**
 * Runs one record write (`write`, given the store to write through) so that an `Idempotency-Key` the request
 * owns (`c.get('idempotency')`) is completed with its answer in the same transaction: the record and the
 * answer a retry replays commit together, or neither does (docs/security.md#idempotency). Without a key the
 * write runs as it is, with no transaction of its own. `answer` is the JSON body the route sends for the
 * stored record with `status`; nothing is completed when the write stored nothing (`undefined`, a 404).
 */
export function writeOnce<R extends DocRecord | undefined>(
  c: Context<AppEnv>,
  store: RecordStore,
  status: number,
  answer: (record: DocRecord) => unknown,
  write: (store: RecordStore) => Promise<R>,
): Promise<R> {
  const claim = c.get('idempotency');
  if (!claim) return write(store);
  return store.atomically(async (inTransaction, tx) => {
    const record = await write(inTransaction);
    if (record !== undefined) {
      const body = JSON.stringify(answer(record));
      await claim.complete({ status, headers: { 'content-type': 'application/json' }, body }, tx);
    }
    return record;
  });
}
