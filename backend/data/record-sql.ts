/**
 * The SQL of the record store (record-store.ts) built from a DocType and a query: the `records` row as
 * selected, the filters and order of a list, the masked form of a page, and the row turned into a record.
 * Field names come from the DocType definition; every value is a parameter.
 */
import type { DocTypeDefinition } from '../../src/contract/doctype';
import { fieldExpression, nameLiteral, searchExpression } from '../db/record-indexes';
import { PII_MASK } from '../permissions/mask';
import { type Filter, fieldKind, type ListQuery } from './list-query';
import type { DocRecord, ReadView, SumOptions } from './records';

/** A row of `records` as the store's statements select it. */
export interface Row {
  name: string;
  data: Record<string, unknown>;
  creation: Date | string;
  modified: Date | string;
  modified_by: string | null;
  /** Default-order pages: `modified` to the microsecond, for the next page's cursor. */
  cursor_modified?: string;
  /** Pages with masked fields: what each held (see {@link dataSql}). */
  masked_state?: string;
}

/** `modified` as UTC ISO text with the microseconds the column keeps (a JS Date would drop them). */
export const CURSOR_MODIFIED = `to_char(modified AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_modified`;

/** The columns every read of whole records selects, in the order {@link Row} names them. */
export const COLUMNS = 'name, data, creation, modified, modified_by';

/** `<prefix>-<counter>`, at least five digits: what the insert of an unnamed record computes in SQL. */
export function seriesName(prefix: string, counter: number): string {
  return `${prefix}-${String(counter).padStart(5, '0')}`;
}

/**
 * The `data` a page selects for `view`: the keys it omits and the fields it masks are left out by the
 * database (a masked value is read only to learn whether it is there), so they are neither sent nor
 * parsed, the ciphertexts of personal data at rest being most of a masked record's bytes
 * (docs/security.md#what-it-costs). What the masked fields held comes in one more column,
 * `masked_state`, a character per field in `view.masked`'s order: `-` absent, `0` a JSON null, `1` a
 * value. One column rather than one per field: the driver copies every column of every row out of the
 * wire message on its own, which costs a page more than the state itself. Field names are identifiers of
 * the definition, checked by `nameLiteral` before they are written into the SQL.
 */
export function dataSql(view: ReadView | undefined): string {
  const masked = view?.masked ?? [];
  const dropped = [...masked, ...(view?.omit ?? [])];
  if (dropped.length === 0) return 'data';
  const stripped = `data - ARRAY[${dropped.map((k) => nameLiteral(k)).join(', ')}]::text[] AS data`;
  if (masked.length === 0) return stripped;
  const state = masked.map((field) => {
    const key = nameLiteral(field);
    return `CASE WHEN NOT data ? ${key} THEN '-' WHEN data->${key} = 'null'::jsonb THEN '0' ELSE '1' END`;
  });
  return `${stripped}, ${state.join(' || ')} AS masked_state`;
}

/**
 * `row.data` with the mask back on each masked field the row holds a value for (see {@link dataSql}). The
 * driver parsed `data` for this row alone, so it is completed in place rather than copied.
 */
export function maskedData(row: Row, view: ReadView | undefined): Record<string, unknown> {
  const masked = view?.masked ?? [];
  const state = row.masked_state;
  if (masked.length === 0 || state === undefined) return row.data;
  const data = row.data;
  for (let i = 0; i < masked.length; i++) {
    // A JSON null stays null; a field the record does not hold stays absent.
    if (state[i] === '1') data[masked[i]!] = PII_MASK;
    else if (state[i] === '0') data[masked[i]!] = null;
  }
  return data;
}

export function toRecord(row: Row, fields?: string[]): DocRecord {
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

export function whereSql(doctype: DocTypeDefinition, filters: Filter[], params: unknown[]): string {
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
export function orderSql(doctype: DocTypeDefinition, query: ListQuery): string {
  const indexable = query.filters.length === 0;
  const keys = query.orderBy.map((o) => {
    const direction = o.direction === 'desc' ? 'DESC' : 'ASC';
    if (indexable && STANDARD_COLUMNS.has(o.field)) return `${o.field} ${direction}`;
    return `${fieldSql(doctype, o.field)} ${direction} NULLS LAST`;
  });
  return [...keys, 'name ASC'].join(', ');
}

/**
 * The SQL and parameters of `RecordStore.sum` (records.ts): the sum over `doctype`'s records of the product of
 * `fields` (each read as numeric), optionally of the records whose `whereIn.field` is one of its values.
 * Field names are parameters, never SQL text.
 */
export function sumSql(doctype: string, fields: readonly string[], options: SumOptions): [string, unknown[]] {
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
  return [`SELECT COALESCE(SUM(${product}), 0) AS total FROM records WHERE ${where}`, params];
}
