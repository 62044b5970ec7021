import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { Database } from '../db/database';
import { fieldExpression, searchExpression } from '../db/record-indexes';
import { type Filter, fieldKind, type ListQuery, type OrderBy } from './list-query';
import type { DocRecord, RecordStore, SumOptions } from './records';

export type { DocRecord, RecordStore } from './records';

interface Row {
  name: string;
  data: Record<string, unknown>;
  creation: Date | string;
  modified: Date | string;
}

const COLUMNS = 'name, data, creation, modified';

function toRecord(row: Row, fields?: string[]): DocRecord {
  const full: DocRecord = {
    name: row.name,
    ...row.data,
    creation: new Date(row.creation).toISOString(),
    modified: new Date(row.modified).toISOString(),
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
  if (field === 'creation' || field === 'modified') return field;
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
      if (column === 'name') return `name ILIKE $${params.length}::text`;
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

function orderSql(doctype: DocTypeDefinition, orderBy: OrderBy[]): string {
  const keys = orderBy.map(
    (o) => `${fieldSql(doctype, o.field)} ${o.direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`,
  );
  return [...keys, 'name ASC'].join(', ');
}

/**
 * The records of every installed DocType, in the one generic table (`records`: doctype, name, data jsonb,
 * creation, modified). All SQL is parameterised; field names come from the DocType definition.
 */
export class DbRecordStore implements RecordStore {
  constructor(private readonly db: Pick<Database, 'query'>) {}

  /** One page of records matching the filters, plus the total number matching. */
  async list(doctype: DocTypeDefinition, query: ListQuery): Promise<{ data: DocRecord[]; total: number }> {
    const params: unknown[] = [];
    const where = whereSql(doctype, query.filters, params);
    const countParams = [...params];
    const order = orderSql(doctype, query.orderBy);
    params.push(query.pageLength, query.start);
    const [page, count] = await Promise.all([
      this.db.query<Row>(
        `SELECT ${COLUMNS} FROM records WHERE ${where} ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
        params,
      ),
      this.db.query<{ count: string | number }>(
        `SELECT count(*) AS count FROM records WHERE ${where}`,
        countParams,
      ),
    ]);
    return {
      data: page.rows.map((r) => toRecord(r, query.fields)),
      total: Number(count.rows[0]?.count ?? 0),
    };
  }

  /** The record, or undefined. */
  async get(doctype: DocTypeDefinition, name: string): Promise<DocRecord | undefined> {
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
  async insert(doctype: DocTypeDefinition, data: Record<string, unknown>): Promise<DocRecord> {
    const { rows } = await this.db.query<Row>(
      `WITH next AS (
         INSERT INTO naming_series (prefix, current) VALUES ($2, 1)
         ON CONFLICT (prefix) DO UPDATE SET current = naming_series.current + 1
         RETURNING current
       )
       INSERT INTO records (doctype, name, data)
       SELECT $1, $2 || '-' || lpad(next.current::text, greatest(5, length(next.current::text)), '0'), $3::jsonb
         FROM next
       RETURNING ${COLUMNS}`,
      [doctype.name, doctype.namePrefix, JSON.stringify(data)],
    );
    return toRecord(rows[0]!);
  }

  /** Replaces a record's fields; undefined when it does not exist. */
  async update(
    doctype: DocTypeDefinition,
    name: string,
    data: Record<string, unknown>,
  ): Promise<DocRecord | undefined> {
    const { rows } = await this.db.query<Row>(
      `UPDATE records SET data = $3::jsonb, modified = now() WHERE doctype = $1 AND name = $2 RETURNING ${COLUMNS}`,
      [doctype.name, name, JSON.stringify(data)],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Deletes a record and returns it; undefined when it did not exist. */
  async delete(doctype: DocTypeDefinition, name: string): Promise<DocRecord | undefined> {
    const { rows } = await this.db.query<Row>(
      `DELETE FROM records WHERE doctype = $1 AND name = $2 RETURNING ${COLUMNS}`,
      [doctype.name, name],
    );
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
