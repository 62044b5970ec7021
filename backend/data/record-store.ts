import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { Database } from '../db/database';
import { fieldExpression, nameLiteral, searchExpression } from '../db/record-indexes';
import { PII_MASK } from '../permissions/mask';
import { encodeListCursor } from './list-cursor';
import { EXACT_TOTAL_LIMIT, type Filter, fieldKind, isDefaultOrder, type ListQuery } from './list-query';
import { PlannerStatistics } from './planner-statistics';
import type { DocRecord, ListPage, ReadView, RecordStore, SumOptions } from './records';

export type { DocRecord, ListPage, RecordStore } from './records';

interface Row {
  name: string;
  data: Record<string, unknown>;
  creation: Date | string;
  modified: Date | string;
  modified_by: string | null;
  /** Default-order pages: `modified` to the microsecond, for the next page's cursor. */
  cursor_modified?: string;
}

/** `modified` as UTC ISO text with the microseconds the column keeps (a JS Date would drop them). */
const CURSOR_MODIFIED = `to_char(modified AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_modified`;

const COLUMNS = 'name, data, creation, modified, modified_by';

/** `<prefix>-<counter>`, at least five digits: what the insert of an unnamed record computes in SQL. */
function seriesName(prefix: string, counter: number): string {
  return `${prefix}-${String(counter).padStart(5, '0')}`;
}

/**
 * The `data` a page selects for `view`: the keys it omits and the fields it masks are left out by the
 * database (a masked value is read only to learn whether it is there), so they are neither
 * sent nor parsed (`masked_<i>` is the JSON type of the value, null when absent), the ciphertexts of personal data at rest being most of a masked record's bytes
 * (docs/performance.md#personal-data-at-rest). Field names are identifiers of the definition, checked by
 * `nameLiteral` before they are written into the SQL.
 */
function dataSql(view: ReadView | undefined): string {
  const dropped = [...(view?.masked ?? []), ...(view?.omit ?? [])];
  if (dropped.length === 0) return 'data';
  const present = (view?.masked ?? []).map(
    (field, i) => `, jsonb_typeof(data->${nameLiteral(field)}) AS masked_${i}`,
  );
  return `data - ARRAY[${dropped.map((k) => nameLiteral(k)).join(', ')}]::text[] AS data${present.join('')}`;
}

/**
 * `row.data` with the mask back on each masked field the row holds a value for (see {@link dataSql}). The
 * driver parsed `data` for this row alone, so it is completed in place rather than copied.
 */
function maskedData(row: Row, view: ReadView | undefined): Record<string, unknown> {
  const masked = view?.masked ?? [];
  if (masked.length === 0) return row.data;
  const data = row.data;
  const flags = row as unknown as Record<string, unknown>;
  for (let i = 0; i < masked.length; i++) {
    // The JSON type of the value, or null when the record does not hold the field: a JSON null stays null.
    const type = flags[`masked_${i}`];
    if (typeof type === 'string') data[masked[i]!] = type === 'null' ? null : PII_MASK;
  }
  return data;
}

function toRecord(row: Row, fields?: string[]): DocRecord {
  const full: DocRecord = {
    name: row.name,
    ...row.data,
    creation: new Date(row.creation).toISOString(),
    modified: new Date(row.modified).toISOString(),
    ...(row.modified_by ? { modified_by: row.modified_by } : {}),
  };
  if (!fields) return full;
  return Object.fromEntries(fields.filter((f) => f in full).map((f) => [f, full[f]])) as DocRecord;
}

/**
 * Builds SQL for one field: standard columns by a fixed name, DocType fields as the same expression their
 * index is built on (`(data->>'field')`, cast for numbers and booleans), so the planner can use it
 * (docs/performance.md#indexes). Field names reach this point only after `fieldKind` accepted them (they are
 * fields of the definition) and `fieldExpression` checks they are identifiers before quoting them.
 */
function fieldSql(doctype: DocTypeDefinition, field: string): string {
  if (field === 'name') return 'name';
  if (field === 'creation' || field === 'modified' || field === 'modified_by') return field;
  return fieldExpression(doctype, field);
}

function castParam(doctype: DocTypeDefinition, field: string, index: number): string {
  const kind = fieldKind(doctype, field);
  if (kind === 'number') return `$${index}::numeric`;
  if (kind === 'boolean') return `$${index}::boolean`;
  if (kind === 'timestamp') return `$${index}::timestamptz`;
  return `$${index}::text`;
}

const STANDARD_TIMESTAMPS = new Set(['creation', 'modified']);
const STANDARD_COLUMNS = new Set(['name', 'creation', 'modified']);

function filterSql(doctype: DocTypeDefinition, filter: Filter, params: unknown[]): string {
  // An empty `in` list matches nothing; decided before any parameter is added (an unused one has no type).
  if (filter.op === 'in' && (filter.value as unknown[]).length === 0) return 'false';
  const column = fieldSql(doctype, filter.field);
  const param = (value: unknown) => {
    params.push(value);
    return castParam(doctype, filter.field, params.length);
  };
  if (filter.op === 'in') {
    const values = filter.value as unknown[];
    return `${column} IN (${values.map((v) => param(v)).join(', ')})`;
  }
  if (filter.value === null) return filter.op === '=' ? `${column} IS NULL` : `${column} IS NOT NULL`;
  switch (filter.op) {
    case '=':
      return `${column} = ${param(filter.value)}`;
    case '!=':
      return `${column} IS DISTINCT FROM ${param(filter.value)}`;
    case 'like': {
      // Pattern matching is on the text form of any field, case-insensitive. DocType fields compare
      // lower-cased text with LIKE rather than ILIKE: the same result, and a prefix pattern can then use
      // the field's `text_pattern_ops` search index.
      params.push(filter.value);
      if (column === 'name' || column === 'modified_by') return `${column} ILIKE $${params.length}::text`;
      if (STANDARD_TIMESTAMPS.has(column)) return `${column}::text ILIKE $${params.length}::text`;
      return `${searchExpression(filter.field)} LIKE lower($${params.length}::text)`;
    }
    default:
      return `${column} ${filter.op} ${param(filter.value)}`;
  }
}

function whereSql(doctype: DocTypeDefinition, filters: Filter[], params: unknown[]): string {
  params.push(doctype.name);
  const clauses = ['doctype = $1', ...filters.map((f) => filterSql(doctype, f, params))];
  return clauses.join(' AND ');
}

/**
 * The ORDER BY of a list: its keys, then `name` as the final tie-break. Standard columns are NOT NULL, so
 * without filters they are sorted without `NULLS LAST`: the same order, and the one the
 * `(doctype, modified DESC, name)` index is built in (a `DESC NULLS LAST` key cannot be read from a `DESC`
 * index, which would sort the whole DocType for every page). With filters the keys keep `NULLS LAST`, which
 * keeps the planner on the filter's own index: walking the order index while filtering is a bet on matches
 * being common, lost on every rare one (docs/performance.md#lists-on-large-tables).
 */
function orderSql(doctype: DocTypeDefinition, query: ListQuery): string {
  const indexable = query.filters.length === 0;
  const keys = query.orderBy.map((o) => {
    const direction = o.direction === 'desc' ? 'DESC' : 'ASC';
    if (indexable && STANDARD_COLUMNS.has(o.field)) return `${o.field} ${direction}`;
    return `${fieldSql(doctype, o.field)} ${direction} NULLS LAST`;
  });
  return [...keys, 'name ASC'].join(', ');
}

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
  readonly #series: Map<string, number>;
  /** What identifies the database this store reads (a companion row must belong in it). */
  readonly #database: object;

  /**
   * `db` with `transaction` gives {@link atomically} a transaction of its own; a store on a transaction's
   * handle (what `atomically` passes to its work) runs nested work in that same transaction.
   */
  constructor(
    private readonly db: Pick<Database, 'query'> & Partial<Pick<Database, 'transaction'>>,
    statistics?: PlannerStatistics,
    series?: Map<string, number>,
  ) {
    this.#statistics = statistics ?? new PlannerStatistics(db);
    this.#series = series ?? new Map();
    this.#database = (db as Partial<Pick<Database, 'identity'>>).identity ?? db;
  }

  /**
   * This store over another handle of the same database (a transaction's): its writes count towards the
   * same statistics refresh, which runs on the database's own handle, never on a transaction that may have
   * ended by then.
   */
  over(handle: Pick<Database, 'query'>): DbRecordStore {
    return new DbRecordStore(handle, this.#statistics, this.#series);
  }

  /** See {@link RecordStore.atomically}: one transaction; the planner statistics stay the outer store's. */
  atomically<T>(
    work: (store: RecordStore, tx: Pick<Database, 'query'> | undefined) => Promise<T>,
  ): Promise<T> {
    if (!this.db.transaction) return work(this, this.db);
    return this.db.transaction((tx) => work(new DbRecordStore(tx, this.#statistics, this.#series), tx));
  }

  /**
   * One page of records matching the filters, plus the total number matching (see
   * {@link RecordStore.list}): exact with filters (counted on their index), and without filters counted up
   * to {@link EXACT_TOTAL_LIMIT}. A page shorter than asked already tells the total, so no count is sent.
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
    const total = await this.#boundedCount(countParams);
    return total > EXACT_TOTAL_LIMIT
      ? { data: records, total: EXACT_TOTAL_LIMIT, total_is_lower_bound: true, ...next }
      : { data: records, total, ...next };
  }

  /**
   * Counts a DocType's records up to one past {@link EXACT_TOTAL_LIMIT}, walking the primary key
   * (`doctype, name`) for at most that many entries instead of reading every record of the DocType.
   */
  async #boundedCount(params: unknown[]): Promise<number> {
    const { rows } = await this.db.query<{ count: string | number }>(
      'SELECT count(*) AS count FROM (SELECT 1 FROM records WHERE doctype = $1 ORDER BY name LIMIT $2) AS matching',
      [params[0], EXACT_TOTAL_LIMIT + 1],
    );
    return Number(rows[0]?.count ?? 0);
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
    this.#series.set(doctype.namePrefix, Number(rows[0]!.name.slice(doctype.namePrefix.length + 1)));
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
    this.#series.set(doctype.namePrefix, current);
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
    const last = this.#series.get(prefix);
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
        this.#series.set(prefix, guess);
        this.#statistics.changed();
        return toRecord(rows[0]);
      }
    }
    const name = await this.nextName(doctype);
    return this.insert(doctype, data(name), by, name);
  }

  /** Replaces a record's fields; undefined when it does not exist. */
  async update(
    doctype: DocTypeDefinition,
    name: string,
    data: Record<string, unknown>,
    by?: string,
  ): Promise<DocRecord | undefined> {
    const { rows } = await this.db.query<Row>(
      `UPDATE records SET data = $3::jsonb, modified = now(), modified_by = $4::text
        WHERE doctype = $1 AND name = $2 RETURNING ${COLUMNS}`,
      [doctype.name, name, JSON.stringify(data), by ?? null],
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
    if (rows[0]) this.#statistics.changed();
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  count(doctype: string, equals: Record<string, unknown> = {}): Promise<number> {
    return countRecords(this.db, doctype, equals);
  }

  async sum(doctype: string, fields: readonly string[], options: SumOptions = {}): Promise<number> {
    const params: unknown[] = [doctype];
    const product = fields
      .map((f) => {
        params.push(f);
        return `(data->>$${params.length})::numeric`;
      })
      .join(' * ');
    let where = 'doctype = $1';
    if (options.whereIn) {
      params.push(options.whereIn.field, options.whereIn.values);
      where += ` AND data->>$${params.length - 1} = ANY($${params.length}::text[])`;
    }
    const { rows } = await this.db.query<{ total: string | number | null }>(
      `SELECT COALESCE(SUM(${product}), 0) AS total FROM records WHERE ${where}`,
      params,
    );
    return Number(rows[0]?.total ?? 0);
  }
}

/**
 * Counts the records of a DocType whose fields equal the given values (JSON containment, `data @> $2`,
 * so field names are never part of the SQL text).
 */
export async function countRecords(
  db: Pick<Database, 'query'>,
  doctype: string,
  equals: Record<string, unknown> = {},
): Promise<number> {
  const { rows } = await db.query<{ count: string | number }>(
    'SELECT count(*) AS count FROM records WHERE doctype = $1 AND data @> $2::jsonb',
    [doctype, JSON.stringify(equals)],
  );
  return Number(rows[0]?.count ?? 0);
}
