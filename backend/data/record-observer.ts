import type { DocRecord, DocTypeDefinition, Principal } from '../../src/contract';
import type { Transaction } from '../security/idempotency/idempotency-store';
import type { ReadCompanion } from './records';

/** A read the data API answered: which records, to whom, and which flagged fields it gave in clear. */
export interface RecordReadEvent {
  doctype: DocTypeDefinition;
  /** Names of the records in the answer. */
  names: string[];
  /** `list` (`GET /api/resource/:doctype`) or `get` (one record). */
  route: 'list' | 'get';
  principal?: Principal;
  /** The `pii` / `encrypted` fields the caller received unmasked (empty when nothing flagged was revealed). */
  revealed: string[];
  /** The caller's address as the middleware chain resolved it, when known. */
  clientAddress?: string;
}

/** A write the data API stored. `before` is absent for a create, `after` for a delete. */
export interface RecordWriteEvent {
  kind: 'create' | 'update' | 'delete';
  doctype: DocTypeDefinition;
  name: string;
  before?: DocRecord;
  after?: DocRecord;
  principal?: Principal;
  /**
   * The transaction the write runs in (undefined for a store in memory): an observer that stores something
   * writes it through `tx`, so it commits with the write or not at all.
   */
  tx?: Transaction;
}

/**
 * Told of what the data API did, after it did it and before it answers (a record's history, the audit log
 * of reveals). An observer cannot change the answer; if it throws, the request fails with its error, so
 * an audit entry that could not be stored is never an answer that went out unaudited. `written` runs inside
 * the write's transaction: its throwing also rolls the write back.
 */
export interface RecordObserver {
  /**
   * Offers, before the read of one record, a row to write in the read's own statement
   * ({@link ReadCompanion}). The observer's `read` is still called after it and must then write whatever
   * the companion did not (the store ignored it, or the record did not exist).
   */
  alongside?(event: RecordReadEvent): ReadCompanion | undefined;
  read?(event: RecordReadEvent): void | Promise<void>;
  written?(event: RecordWriteEvent): void | Promise<void>;
}

/** Calls every observer's `read`, in order. */
export async function notifyRead(
  observers: readonly RecordObserver[],
  event: RecordReadEvent,
): Promise<void> {
  for (const observer of observers) await observer.read?.(event);
}

/** Calls every observer's `written`, in order. */
export async function notifyWritten(
  observers: readonly RecordObserver[],
  event: RecordWriteEvent,
): Promise<void> {
  for (const observer of observers) await observer.written?.(event);
}
