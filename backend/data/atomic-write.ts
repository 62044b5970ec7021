import type { Context } from 'hono';
import type { AppEnv } from '../http/env';
import { notifyWritten, type RecordObserver, type RecordWriteEvent } from './record-observer';
import type { DocRecord, RecordStore } from './records';

/** One record write of the data API, as {@link atomicWrite} runs it. */
export interface AtomicWrite<R extends DocRecord | undefined> {
  /** The write itself, through the store it is given (the transaction's). */
  write: (store: RecordStore) => Promise<R>;
  /** What the observers are told of the stored record (`tx` is added). */
  event: (record: DocRecord) => Omit<RecordWriteEvent, 'tx'>;
  /** The status and JSON body the route answers for the stored record (kept for an `Idempotency-Key`). */
  status: number;
  answer: (record: DocRecord) => unknown;
}

/**
 * Runs one record write, what the observers store of it (its history) and the completion of an
 * `Idempotency-Key` the request owns (`c.get('idempotency')`, with the answer the route sends) in ONE
 * transaction: the record, its history entry and the answer a retry replays commit together or not at all
 * (docs/security.md#idempotency, docs/operators.md#disk-full). A write that stored nothing (`undefined`, a
 * 404) tells no observer and completes nothing.
 */
export function atomicWrite<R extends DocRecord | undefined>(
  c: Context<AppEnv>,
  store: RecordStore,
  observers: readonly RecordObserver[],
  spec: AtomicWrite<R>,
): Promise<R> {
  const claim = c.get('idempotency');
  return store.atomically(async (inTransaction, tx) => {
    const record = await spec.write(inTransaction);
    if (record === undefined) return record;
    await notifyWritten(observers, { ...spec.event(record), tx });
    if (claim) {
      const body = JSON.stringify(spec.answer(record));
      await claim.complete(
        { status: spec.status, headers: { 'content-type': 'application/json' }, body },
        tx,
      );
    }
    return record;
  });
}
