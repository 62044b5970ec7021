import type { Context } from 'hono';
import type { AppEnv } from '../http/env';
import {
  notifyWritten,
  type PendingWriteEvent,
  type RecordObserver,
  type RecordWriteEvent,
  writeCompanions,
} from './record-observer';
import type { DocRecord, RecordStore, WriteCompanion } from './records';

/** One record write of the data API, as {@link atomicWrite} runs it. */
export interface AtomicWrite<R extends DocRecord | undefined> {
  /** The write itself, through the store it is given (the transaction's). */
  write: (store: RecordStore) => Promise<R>;
  /** What the observers are told of the stored record (`tx` is added). */
  event: (record: DocRecord) => Omit<RecordWriteEvent, 'tx'>;
  /** The status and JSON body the route answers for the stored record (kept for an `Idempotency-Key`). */
  status: number;
  answer: (record: DocRecord) => unknown;
  /**
   * The write as one statement with the observers' rows: what the observers are told of it beforehand, and
   * the store's write with their rows (`RecordStore.insertAlongside`, `updateAlongside`, `deleteAlongside`),
   * which answers undefined when it stored nothing.
   */
  alone?: {
    event: PendingWriteEvent;
    write: (alongside: readonly WriteCompanion[]) => Promise<R | undefined>;
  };
}

/**
 * Runs one record write, what the observers store of it (its history) and the completion of an
 * `Idempotency-Key` the request owns (`c.get('idempotency')`, with the answer the route sends) so that they
 * commit together or not at all: the record, its history entry and the answer a retry replays
 * (docs/security.md#idempotency, docs/operators.md#disk-full). A write that stored nothing (`undefined`, a
 * 404) tells no observer and completes nothing.
 *
 * Without an `Idempotency-Key`, and when every observer can say what it stores as a row of the write's own
 * statement ({@link writeCompanions}), the store is first asked to write the record and those rows in ONE
 * statement, without BEGIN and COMMIT: PostgreSQL runs a statement atomically, its data-modifying `WITH`s
 * included, so the promise holds without a transaction, at one round trip instead of four or five (a
 * delete's attachment rows go in that statement too, their files once it stored the delete). When the
 * store declines (or its guess of the new name was wrong, which stores nothing), the write runs in a
 * transaction, with the observers told in it.
 */
export async function atomicWrite<R extends DocRecord | undefined>(
  c: Context<AppEnv>,
  store: RecordStore,
  observers: readonly RecordObserver[],
  spec: AtomicWrite<R>,
): Promise<R> {
  const claim = c.get('idempotency');
  if (!claim && spec.alone) {
    const alongside = writeCompanions(observers, spec.alone.event);
    if (alongside) {
      const record = await spec.alone.write(alongside);
      if (record !== undefined) return record;
    }
  }
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
