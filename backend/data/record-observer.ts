import type { DocRecord, DocTypeDefinition, Principal } from '../../src/contract';
import { isFlagged } from '../../src/protocol';
import type { Transaction } from '../security/idempotency/idempotency-store';
import type { ReadCompanion, WriteCompanion } from './records';

/**
 * Where a reveal happened: `list` (`GET /api/resource/:doctype` and what pages through it), `get` (one
 * record), or an RPC method whose app code read flagged values during the caller's call.
 */
export type RevealRoute = 'list' | 'get' | `POST /api/method/${string}`;

/**
 * A read answered to a caller: which records, to whom, and which flagged fields it gave in clear. Told by the
 * data API's reads, and by app code's `records.get` during an RPC call (backend/apps/app-services.ts), since
 * a value decrypted on a person's behalf is a reveal whoever hands it on.
 */
export interface RecordReadEvent {
  doctype: DocTypeDefinition;
  /** Names of the records in the answer. */
  names: string[];
  route: RevealRoute;
  principal?: Principal;
  /**
   * The `pii` / `encrypted` fields the caller learnt in clear (empty when nothing flagged was revealed): those
   * the answer carried unmasked, and those its filters tested (see {@link revealedFields}).
   */
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
   * The fields the write's request carried (its body's keys), when a request made it; absent otherwise (an
   * import, app code). With {@link masked} it keeps the history from telling a writer whether a value they
   * guessed was the stored one (history-observer.ts).
   */
  sent?: readonly string[];
  /** The fields the writer receives masked (`pii` fields without `read_pii`); absent when unknown. */
  masked?: readonly string[];
  /**
   * The transaction the write runs in (undefined for a store in memory): an observer that stores something
   * writes it through `tx`, so it commits with the write or not at all.
   */
  tx?: Transaction;
}

/**
 * A write about to be stored with its observers' rows in one statement, as the observers are told of it
 * beforehand: what its {@link RecordWriteEvent} will say, but that a create's `name` is not known yet (the
 * statement takes it), `after` (absent for a delete) holds the fields as written, without `name`,
 * `creation` and the other standard fields, and a delete's `before` is the record as the route read it.
 */
export type PendingWriteEvent = Omit<RecordWriteEvent, 'tx' | 'name' | 'after'> & {
  name?: string;
  after?: Record<string, unknown>;
};

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
  /**
   * Offers, before a write is stored, what {@link written} would store of it as a row the store
   * may insert in the write's own statement ({@link WriteCompanion}); `null` when it would store nothing of
   * this write. When the store writes that way, `written` is not called for the write: the row is what it
   * would have stored. An observer with `written` that offers nothing (no method, or undefined) has the
   * write run in a transaction, and `written` called in it, as always.
   */
  alongsideWrite?(event: PendingWriteEvent): WriteCompanion | null | undefined;
}

/**
 * The flagged fields of `doctype` a reader who gets `masked` masked learns in clear from a read: those the
 * answer returns (`returned`, a list's `fields`; all when absent) and those its filters test (`tested`). A
 * filter on a flagged field tells its caller that field's value for every record returned (an equality
 * names it; `!=` and `in` narrow it), whatever the projection leaves out. In the DocType's order, once each.
 */
export function revealedFields(
  doctype: DocTypeDefinition,
  masked: readonly string[],
  returned?: readonly string[],
  tested: readonly string[] = [],
): string[] {
  return doctype.fields
    .filter((f) => isFlagged(f) && !masked.includes(f.name))
    .filter((f) => returned === undefined || returned.includes(f.name) || tested.includes(f.name))
    .map((f) => f.name);
}

/** Calls every observer's `read`, in order. */
export async function notifyRead(
  observers: readonly RecordObserver[],
  event: RecordReadEvent,
): Promise<void> {
  for (const observer of observers) await observer.read?.(event);
}

/**
 * The rows every observer with a `written` stores of `event`, as companions of the write's statement; or
 * undefined when one of them cannot say it that way (the write then runs in a transaction).
 */
export function writeCompanions(
  observers: readonly RecordObserver[],
  event: PendingWriteEvent,
): WriteCompanion[] | undefined {
  const companions: WriteCompanion[] = [];
  for (const observer of observers) {
    if (!observer.written) continue;
    const companion = observer.alongsideWrite?.(event);
    if (companion === undefined) return undefined;
    if (companion !== null) companions.push(companion);
  }
  return companions;
}

/** Calls every observer's `written`, in order. */
export async function notifyWritten(
  observers: readonly RecordObserver[],
  event: RecordWriteEvent,
): Promise<void> {
  for (const observer of observers) await observer.written?.(event);
}
