import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { Database } from '../db/database';
import { embeddedDatabase } from '../db/embedded';
import { insertGroup } from './grouped-insert';
import { encodeListCursor } from './list-cursor';
import { EXACT_TOTAL_LIMIT, isDefaultOrder, type ListQuery } from './list-query';
import { NamingGuesses } from './naming-guesses';
import { PlannerStatistics } from './planner-statistics';
import { countRecords } from './record-count';
import {
  COLUMNS,
  CURSOR_MODIFIED,
  dataSql,
  maskedData,
  orderSql,
  type Row,
  seriesName,
  sumSql,
  toRecord,
  whereSql,
} from './record-sql';
import type { DocRecord, ListPage, ReadView, RecordStore, SumOptions, WriteCompanion } from './records';
import { TotalBounds, unfilteredTotal } from './total-bounds';
import { deleteAlongsideSql, updateAlongsideSql, updatedDataSql } from './write-companion-sql';

export type { DocRecord, ListPage, RecordStore } from './records';

/**
 * The records of every installed DocType, in the one generic table (`records`: doctype, name, data jsonb,
 * creation, modified, modified_by). All SQL is parameterised; field names come from the DocType definition.
 */
export class DbRecordStore implements RecordStore {
  readonly #statistics: PlannerStatistics;
  /**
   * The counter each naming prefix had after this process's last use of it: the guess of
   * {@link insertNamed}. Shared by every store over this database (transactions' included).
   */
  readonly #series: NamingGuesses;
  /** What identifies the database this store reads (a companion row must belong in it). */
  readonly #database: object;
  /**
   * Lower bounds of each DocType's count, kept only over an embedded database (no other process deletes
   * there); shared by every store over this database, like {@link #series}.
   */
  readonly #bounds: TotalBounds | undefined;
  /**
   * Whether this store's counts set those bounds: not inside a transaction, whose count sees its own
   * uncommitted creates (a rollback would leave the bound too high).
   */
  readonly #boundsFromCounts: boolean;

  /**
   * `db` with `transaction` gives {@link atomically} a transaction of its own; a store on a transaction's
   * handle (what `atomically` passes to its work) runs nested work in that same transaction.
   */
  constructor(
    private readonly db: Pick<Database, 'query'> & Partial<Pick<Database, 'transaction'>>,
    statistics?: PlannerStatistics,
    series?: NamingGuesses,
    bounds?: TotalBounds,
    inTransaction = false,
  ) {
    this.#statistics = statistics ?? new PlannerStatistics(db);
    this.#series = series ?? new NamingGuesses();
    this.#database = (db as Partial<Pick<Database, 'identity'>>).identity ?? db;
    this.#bounds = bounds ?? (embeddedDatabase(db) ? new TotalBounds() : undefined);
    this.#boundsFromCounts = !inTransaction;
  }

  /**
   * This store over another handle of the same database (a transaction's): its writes count towards the
   * same statistics refresh, which runs on the database's own handle, never on a transaction that may have
   * ended by then.
   */
  over(handle: Pick<Database, 'query'>): DbRecordStore {
    // A handle that can open transactions is the database's own; one that cannot is a transaction's.
    const inTransaction = !(handle as Partial<Pick<Database, 'transaction'>>).transaction;
    return new DbRecordStore(handle, this.#statistics, this.#series, this.#bounds, inTransaction);
  }

  /** See {@link RecordStore.atomically}: one transaction; the planner statistics stay the outer store's. */
  atomically<T>(
    work: (store: RecordStore, tx: Pick<Database, 'query'> | undefined) => Promise<T>,
  ): Promise<T> {
    if (!this.db.transaction) return work(this, this.db);
    return this.db.transaction((tx) =>
      work(new DbRecordStore(tx, this.#statistics, this.#series, this.#bounds, true), tx),
    );
  }

  /**
   * One page of records matching the filters, plus the total number matching (see
   * {@link RecordStore.list}): exact with filters (counted on their index), and without filters counted up
   * to {@link EXACT_TOTAL_LIMIT}, or not counted while the kept lower bound is past it (an embedded
   * database's {@link TotalBounds}). A page shorter than asked already tells the total, so no count is sent.
   */
  async list(doctype: DocTypeDefinition, query: ListQuery, view?: ReadView): Promise<ListPage> {
    const ready = this.#statistics.ready();
    // Inside a transaction (a uniqueness check of a write, an import's batch) the first analysis, which runs
    // on the database's own handle, waits for the transaction to end: waiting for it here would never end.
    if (this.#statistics.runsOn(this.db)) await ready;
    const params: unknown[] = [];
    const where = whereSql(doctype, query.filters, params);
    const countParams = [...params];
    const keyset = isDefaultOrder(query.orderBy);
    let pageWhere = where;
    if (query.after) {
      // After the cursor's record in `modified DESC, name` order. The first condition bounds the walk of
      // the (doctype, modified DESC, name) index to start at the cursor; the second skips its ties before it.
      params.push(query.after.modified, query.after.name);
      const m = `$${params.length - 1}::timestamptz`;
      pageWhere += ` AND modified <= ${m} AND (modified < ${m} OR name > $${params.length})`;
    }
    params.push(query.pageLength, query.start);
    const order = orderSql(doctype, query);
    const paging = `ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`;
    const cursor = keyset ? `, ${CURSOR_MODIFIED}` : '';
    const data = dataSql(view);
    // A page that leaves keys out does so once the page is cut: the rows an OFFSET skips are computed too,
    // and would each be rewritten for nothing. The outer ORDER BY keeps the page's order (its expressions
    // read the page's own `data`, an output name counting only when it stands alone).
    const sql =
      data === 'data'
        ? `SELECT ${COLUMNS}${cursor} FROM records WHERE ${pageWhere} ${paging}`
        : `SELECT name, ${data}, creation, modified, modified_by${cursor} FROM (SELECT ${COLUMNS} FROM records WHERE ${pageWhere} ${paging}) AS page ORDER BY ${order}`;
    const page = await this.db.query<Row>(sql, params);
    const records = page.rows.map((r) => {
      maskedData(r, view);
      return toRecord(r, query.fields);
    });
    const last = page.rows.at(-1);
    const next =
      keyset && last?.cursor_modified && records.length === query.pageLength
        ? { next_cursor: encodeListCursor({ modified: last.cursor_modified, name: last.name }) }
        : {};
    if (!query.after && records.length < query.pageLength && (records.length > 0 || query.start === 0)) {
      return { data: records, total: query.start + records.length };
    }
    if (query.filters.length > 0) {
      const { rows } = await this.db.query<{ count: string | number }>(
        `SELECT count(*) AS count FROM records WHERE ${where}`,
        countParams,
      );
      return { data: records, total: Number(rows[0]?.count ?? 0), ...next };
    }
    const total = await unfilteredTotal(this.db, doctype.name, this.#bounds, this.#boundsFromCounts);
    return total === undefined
      ? { data: records, total: EXACT_TOTAL_LIMIT, total_is_lower_bound: true, ...next }
      : { data: records, total, ...next };
  }

  /**
   * The record, or undefined. A companion row of this database (`view.alongside`, the audit entry of a
   * reveal) is inserted by the same statement, if and only if the record exists: PostgreSQL runs a `WITH`'s
   * sub-statements and the main query on one snapshot, so the record the INSERT's condition saw is the one
   * the SELECT returns.
   */
  async get(doctype: DocTypeDefinition, name: string, view?: ReadView): Promise<DocRecord | undefined> {
    const companion = view?.alongside;
    if (companion && companion.database === this.#database) {
      return companion.run(async (insert) => {
        const { rows } = await this.db.query<Row>(
          `WITH found AS (SELECT ${COLUMNS} FROM records WHERE doctype = $1 AND name = $2),
           companion AS (${insert.sql(3, 'EXISTS (SELECT 1 FROM found)')})
           SELECT * FROM found`,
          [doctype.name, name, ...insert.params],
        );
        return { value: rows[0] ? toRecord(rows[0]) : undefined, inserted: rows.length > 0 };
      });
    }
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM records WHERE doctype = $1 AND name = $2`,
      [doctype.name, name],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /**
   * Stores a new record named `<namePrefix>-<counter>` (`CUST-00001`). The counter and the insert are one
   * statement, so concurrent creates never share a name.
   */
  async insert(
    doctype: DocTypeDefinition,
    data: Record<string, unknown>,
    by?: string,
    name?: string,
  ): Promise<DocRecord> {
    if (name !== undefined) {
      const { rows } = await this.db.query<Row>(
        `INSERT INTO records (doctype, name, data, modified_by) VALUES ($1, $2, $3::jsonb, $4::text)
         RETURNING ${COLUMNS}`,
        [doctype.name, name, JSON.stringify(data), by ?? null],
      );
      this.#statistics.changed();
      return toRecord(rows[0]!);
    }
    const { rows } = await this.db.query<Row>(
      `WITH next AS (
         INSERT INTO naming_series (prefix, current) VALUES ($2, 1)
         ON CONFLICT (prefix) DO UPDATE SET current = naming_series.current + 1
         RETURNING current
       )
       INSERT INTO records (doctype, name, data, modified_by)
       SELECT $1, $2 || '-' || lpad(next.current::text, greatest(5, length(next.current::text)), '0'), $3::jsonb,
              $4::text
         FROM next
       RETURNING ${COLUMNS}`,
      [doctype.name, doctype.namePrefix, JSON.stringify(data), by ?? null],
    );
    this.#statistics.changed();
    // The counter it took, for the guess of a later insertNamed of the same prefix.
    this.#series.took(doctype.namePrefix, Number(rows[0]!.name.slice(doctype.namePrefix.length + 1)));
    return toRecord(rows[0]!);
  }

  /** See {@link RecordStore.nextName}: the counter the insert of a record without a name would take. */
  async nextName(doctype: DocTypeDefinition): Promise<string> {
    const { rows } = await this.db.query<{ current: string | number }>(
      `INSERT INTO naming_series (prefix, current) VALUES ($1, 1)
       ON CONFLICT (prefix) DO UPDATE SET current = naming_series.current + 1
       RETURNING current`,
      [doctype.namePrefix],
    );
    const current = Number(rows[0]!.current);
    this.#series.took(doctype.namePrefix, current);
    return seriesName(doctype.namePrefix, current);
  }

  /**
   * See {@link RecordStore.insertNamed}. The next name is guessed from this process's last use of the
   * prefix, and the counter's move and the insert are one statement that only stores the record if the
   * guess was right (the counter was still one below it: no other process or rolled-back write moved it).
   * The database then runs one statement per new record, as for a record whose data does not depend on its
   * name. A wrong guess stores nothing and changes nothing: the name is then taken ({@link nextName}) and
   * the record inserted under it, as before.
   */
  async insertNamed(
    doctype: DocTypeDefinition,
    data: (name: string) => Record<string, unknown>,
    by?: string,
  ): Promise<DocRecord> {
    const prefix = doctype.namePrefix;
    const last = this.#series.last(prefix);
    if (last !== undefined) {
      const guess = last + 1;
      const name = seriesName(prefix, guess);
      // Under concurrent writers the UPDATE waits for the row's lock and re-checks its condition on the
      // committed counter, so two guesses of the same name never both succeed.
      const { rows } = await this.db.query<Row>(
        `WITH next AS (
           UPDATE naming_series SET current = $5::bigint WHERE prefix = $6 AND current = $5::bigint - 1
           RETURNING current
         )
         INSERT INTO records (doctype, name, data, modified_by)
         SELECT $1, $2, $3::jsonb, $4::text FROM next
         RETURNING ${COLUMNS}`,
        [doctype.name, name, JSON.stringify(data(name)), by ?? null, guess, prefix],
      );
      if (rows[0]) {
        this.#series.took(prefix, guess);
        this.#statistics.changed();
        return toRecord(rows[0]);
      }
    }
    const name = await this.nextName(doctype);
    return this.insert(doctype, data(name), by, name);
  }

  /**
   * See {@link RecordStore.insertAlongside}: {@link insertNamed}'s guessed statement, with each companion's
   * INSERT as one more data-modifying `WITH`, conditioned on the records' INSERT having stored them. The
   * creates of one prefix that arrive while such a statement is in flight go together in the next one, each
   * under the name after its predecessor's ({@link NamingGuesses.together}), which is why only a store
   * outside a transaction runs them. A statement is atomic in PostgreSQL: a companion that fails (a full
   * device, a constraint) fails the statement and stores no record, companion or move of the counter; a
   * wrong guess stores none of them either. Either way the caller's transaction takes over, except that a
   * write sent alone is given the statement's error.
   */
  async insertAlongside(
    doctype: DocTypeDefinition,
    data: (name: string) => Record<string, unknown>,
    by: string | undefined,
    alongside: readonly WriteCompanion[],
  ): Promise<DocRecord | undefined> {
    if (!this.#alone(alongside)) return undefined;
    return this.#series.together(doctype.namePrefix, { doctype, data, by, alongside }, async (group) => {
      const records = await insertGroup(this.db, this.#series, doctype.namePrefix, group);
      if (records[0]) this.#statistics.changed();
      return records;
    });
  }

  /**
   * See {@link RecordStore.updateAlongside}: the UPDATE of {@link update} and each companion's INSERT in
   * one statement, the INSERTs conditioned on the UPDATE having found the record.
   */
  async updateAlongside(
    doctype: DocTypeDefinition,
    name: string,
    data: Record<string, unknown>,
    by: string | undefined,
    alongside: readonly WriteCompanion[],
    keep: readonly string[] = [],
  ): Promise<DocRecord | undefined> {
    if (!this.#alone(alongside)) return undefined;
    const params: unknown[] = [doctype.name, name, JSON.stringify(data), by ?? null];
    if (keep.length > 0) params.push(keep);
    const statement = updateAlongsideSql(alongside, name, params, keep);
    const { rows } = await this.db.query<Row>(statement.sql, params);
    if (!rows[0]) return undefined;
    this.#statistics.changed();
    statement.tell(rows[0] as unknown as Record<string, unknown>);
    return toRecord(rows[0]);
  }

  /**
   * See {@link RecordStore.deleteAlongside}: the DELETE of {@link delete} and each companion's statement in
   * one, the companions conditioned on the DELETE having found the record. Nothing of a delete's companions
   * depends on the record's fields (its history entry names no field, its attachments go by its name), so
   * a write that changed the record since the caller read it changes nothing of what the statement stores.
   */
  async deleteAlongside(
    doctype: DocTypeDefinition,
    name: string,
    alongside: readonly WriteCompanion[],
  ): Promise<DocRecord | undefined> {
    if (!this.#alone(alongside)) return undefined;
    const params: unknown[] = [doctype.name, name];
    const statement = deleteAlongsideSql(alongside, name, params);
    const { rows } = await this.db.query<Row>(statement.sql, params);
    if (!rows[0]) return undefined;
    this.#statistics.changed();
    this.#bounds?.deleted(doctype.name);
    statement.tell(rows[0] as unknown as Record<string, unknown>);
    return toRecord(rows[0]);
  }

  /**
   * Whether this store writes a record with `alongside` in one statement of its own: it is not inside a
   * transaction (there, the transaction already keeps them together) and every row belongs in its database.
   */
  #alone(alongside: readonly WriteCompanion[]): boolean {
    return this.db.transaction !== undefined && alongside.every((c) => c.database === this.#database);
  }

  /** Replaces a record's fields; undefined when it does not exist. */
  async update(
    doctype: DocTypeDefinition,
    name: string,
    data: Record<string, unknown>,
    by?: string,
    keep: readonly string[] = [],
  ): Promise<DocRecord | undefined> {
    const params: unknown[] = [doctype.name, name, JSON.stringify(data), by ?? null];
    if (keep.length > 0) params.push(keep);
    const { rows } = await this.db.query<Row>(
      `UPDATE records SET data = ${updatedDataSql(keep)}, modified = now(), modified_by = $4::text
        WHERE doctype = $1 AND name = $2 RETURNING ${COLUMNS}`,
      params,
    );
    if (rows[0]) this.#statistics.changed();
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Deletes a record and returns it; undefined when it did not exist. */
  async delete(doctype: DocTypeDefinition, name: string): Promise<DocRecord | undefined> {
    const { rows } = await this.db.query<Row>(
      `DELETE FROM records WHERE doctype = $1 AND name = $2 RETURNING ${COLUMNS}`,
      [doctype.name, name],
    );
    if (rows[0]) {
      this.#statistics.changed();
      this.#bounds?.deleted(doctype.name);
    }
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  count(doctype: string, equals: Record<string, unknown> = {}): Promise<number> {
    return countRecords(this.db, doctype, equals);
  }

  async sum(doctype: string, fields: readonly string[], options: SumOptions = {}): Promise<number> {
    const [sql, params] = sumSql(doctype, fields, options);
    const { rows } = await this.db.query<{ total: string | number | null }>(sql, params);
    return Number(rows[0]?.total ?? 0);
  }
}
