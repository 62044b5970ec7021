import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { Transaction } from '../security/idempotency/idempotency-store';
import type { ListQuery } from './list-query';

/**
 * A record as the data API returns it: its fields plus `name`, `creation` and `modified` (ISO 8601), and
 * `modified_by`, the user whose write stored this version (absent for records stored before it was kept,
 * and for records no request wrote).
 */
export type DocRecord = Record<string, unknown> & {
  name: string;
  creation: string;
  modified: string;
  modified_by?: string;
};

/** What {@link RecordStore.list} answers; `total_is_lower_bound` is present only when the count was capped. */
export interface ListPage {
  data: DocRecord[];
  total: number;
  total_is_lower_bound?: true;
  /** Default order, a full page: the `cursor` of the page after it (docs/http-api.md#list-parameters). */
  next_cursor?: string;
}

/** Options of {@link RecordStore.sum}. */
export interface SumOptions {
  /** Only records whose text field `field` is one of `values`. */
  whereIn?: { field: string; values: readonly string[] };
}

/**
 * What the caller of a read will see: the fields it receives masked (docs/permissions.md#personal-data). A
 * store that would have to decrypt a value to return it (the records' encryption at rest) returns the mask
 * for these fields instead and decrypts nothing for them; other stores may ignore it, since the data routes
 * mask the answer anyway.
 */
export interface ReadView {
  readonly masked: readonly string[];
  /**
   * Stored keys the caller never returns (the blind indexes of personal data at rest): a store may leave
   * them out of what it reads, so they are neither transferred nor parsed.
   */
  readonly omit?: readonly string[];
  /**
   * A row to insert with the read of one record (the audit entry of a reveal): a database store runs it in
   * the read's own statement when the row belongs to its database; any other store ignores it, and the
   * caller then writes the row itself (see {@link ReadCompanion}).
   */
  readonly alongside?: ReadCompanion;
}

/**
 * The INSERT of a {@link ReadCompanion}: `sql(first, condition)` is `INSERT ... SELECT ... WHERE condition`
 * with its own parameters numbered from `$first`, and `params` are those parameters, in order.
 */
export interface CompanionInsert {
  sql(first: number, condition: string): string;
  readonly params: readonly unknown[];
}

/**
 * A row written in the same statement as a read (PostgreSQL's data-modifying `WITH`). On the embedded
 * database a statement's fixed cost (parse, plan, commit, the trip into WebAssembly) outweighs a small
 * insert's own work, so an insert that rides on the read costs a fraction of one of its own
 * (docs/security.md#what-it-costs). The read runs inside {@link run}, which may run it again
 * (the owner of the row decides, e.g. after another process took the row's key); `inserted` tells the
 * owner whether its row was written, which the store knows from the read: the INSERT's condition is that
 * the record exists, evaluated in the statement's one snapshot.
 */
export interface ReadCompanion {
  /** The database the row belongs in (its `identity`, backend/db/database.ts); a store over another ignores it. */
  readonly database: object;
  run<T>(read: (insert: CompanionInsert) => Promise<{ value: T; inserted: boolean }>): Promise<T>;
}

/**
 * A row an observer stores of a write (the record's history entry), offered to the store to insert in the
 * write's own statement, so the record and the row commit together without a transaction around them: one
 * statement is atomic. `insert(name)` is the INSERT for the record named `name` (for a create, the name the
 * statement is about to take), run with the condition that the write stored the record; for a delete it may
 * as well be the DELETE of rows that go with the record (its attachments).
 */
export interface WriteCompanion {
  /** The database the row belongs in (its `identity`, backend/db/database.ts); a store over another declines. */
  readonly database: object;
  insert(name: string): CompanionInsert;
  /**
   * Told, once the statement stored the write, the values its SQL returned (it then ends in a `RETURNING`
   * of one column): the digests of the attachments a delete removed, whose files go once no row needs them.
   */
  returned?(values: readonly unknown[]): void;
}

/**
 * Where the records of every installed DocType live. The data routes and RPC methods use only this, so the
 * same routes run over the platform database (`DbRecordStore`) or over memory (`MemoryRecordStore`, the
 * offline mocks). List queries arrive already validated by `parseListQuery`; both implementations give them
 * the same meaning: filters combined with AND, `like` case-insensitive with `%`/`_` wildcards, `!=` true for
 * missing values, sort keys with missing values last and `name` ascending as the final tie-break, paging
 * after sorting and `total` counted before paging. New names are `<namePrefix>-<counter>`, at least five
 * digits, one counter per prefix.
 */
export interface RecordStore {
  /**
   * One page of records matching the filters, plus the total number matching; without filters counted up
   * to `EXACT_TOTAL_LIMIT` (list-query.ts): beyond it `total` is that bound and `total_is_lower_bound` true.
   */
  list(doctype: DocTypeDefinition, query: ListQuery, view?: ReadView): Promise<ListPage>;
  /** The record, or undefined. */
  get(doctype: DocTypeDefinition, name: string, view?: ReadView): Promise<DocRecord | undefined>;
  /**
   * Stores a new record under the next name of the DocType's prefix, or under `name` when the caller took
   * one with {@link nextName}; `by` becomes its `modified_by`.
   */
  insert(
    doctype: DocTypeDefinition,
    data: Record<string, unknown>,
    by?: string,
    name?: string,
  ): Promise<DocRecord>;
  /**
   * Takes the next name of the DocType's prefix without storing a record, for a writer that must know the
   * name before it writes (personal data at rest binds each value to its record): it then inserts under
   * that name in one statement. A name taken and never used leaves a gap, as a rolled-back insert does.
   */
  nextName(doctype: DocTypeDefinition): Promise<string>;
  /**
   * Stores a new record under the next name of the DocType's prefix whose data depends on that name
   * (personal data at rest binds each value to its record): `data(name)` gives what is stored, and may be
   * called more than once (for a name guessed, then for the one taken). Optional: without it a writer
   * takes the name with {@link nextName} and inserts under it.
   */
  insertNamed?(
    doctype: DocTypeDefinition,
    data: (name: string) => Record<string, unknown>,
    by?: string,
  ): Promise<DocRecord>;
  /**
   * Stores a new record, as {@link insertNamed} does, and the `alongside` rows in ONE statement, outside any
   * transaction: the record and the rows are stored together or, if any of them fails, none is. Undefined
   * when it stored nothing without failing: it declines inside a transaction, for a row of another
   * database, before this process knows the prefix's counter, and when its guess of the name was wrong. The
   * caller then writes the record and the rows the ordinary way, in a transaction. Optional.
   */
  insertAlongside?(
    doctype: DocTypeDefinition,
    data: (name: string) => Record<string, unknown>,
    by: string | undefined,
    alongside: readonly WriteCompanion[],
  ): Promise<DocRecord | undefined>;
  /**
   * Replaces a record's fields, as {@link update} does, and stores the `alongside` rows in the same
   * statement when it did (see {@link insertAlongside}). Undefined when it stored nothing: it declined, or
   * the record does not exist (the caller's ordinary write then tells which). Optional.
   */
  updateAlongside?(
    doctype: DocTypeDefinition,
    name: string,
    data: Record<string, unknown>,
    by: string | undefined,
    alongside: readonly WriteCompanion[],
    keep?: readonly string[],
  ): Promise<DocRecord | undefined>;
  /**
   * Deletes a record, as {@link delete} does, and runs the `alongside` statements in the same statement when
   * it did (see {@link insertAlongside}). Undefined when it deleted nothing: it declined, or the record does
   * not exist (the caller's ordinary delete then tells which). Optional.
   */
  deleteAlongside?(
    doctype: DocTypeDefinition,
    name: string,
    alongside: readonly WriteCompanion[],
  ): Promise<DocRecord | undefined>;
  /**
   * Replaces a record's fields; undefined when it does not exist. `by` becomes its `modified_by` (without
   * it, none: a write no one made is not credited to the last person who did). The stored values of the
   * fields `keep` names stay as they are (they are not in `data`): a writer who gets them masked updates the
   * rest of the record without anything of them being opened (docs/security.md#personal-data-at-rest).
   */
  update(
    doctype: DocTypeDefinition,
    name: string,
    data: Record<string, unknown>,
    by?: string,
    keep?: readonly string[],
  ): Promise<DocRecord | undefined>;
  /** Deletes a record and returns it; undefined when it did not exist. */
  delete(doctype: DocTypeDefinition, name: string): Promise<DocRecord | undefined>;
  /** How many records of `doctype` have every field of `equals` equal to the given value. */
  count(doctype: string, equals?: Record<string, unknown>): Promise<number>;
  /** Sum over the records of `doctype` of the product of the numeric `fields` (missing values count 0). */
  sum(doctype: string, fields: readonly string[], options?: SumOptions): Promise<number>;
  /**
   * Runs `work` with a store whose writes, and whatever `work` writes through `tx`, commit together or not
   * at all (one database transaction; `work` throwing rolls it back). The store in memory has no
   * transaction: `tx` is undefined and each write stands alone.
   */
  atomically<T>(work: (store: RecordStore, tx: Transaction | undefined) => Promise<T>): Promise<T>;
}
