import type { DocTypeDefinition, FieldType } from '../../src/contract/doctype';
import { type ErrorCode, PlatformError } from '../http/errors';
import { parseSafeJson } from '../http/safe-json';
import { decodeListCursor, type ListCursor } from './list-cursor';

/** Filter operators of the list API (docs/http-api.md#doctype-data-api-and-rpc, Frappe-style). */
export const FILTER_OPS = ['=', '!=', '<', '>', '<=', '>=', 'like', 'in'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** A scalar a filter compares with. */
export type FilterValue = string | number | boolean | null;

/** One validated filter: `field` is a known column of the DocType, never free text. */
export interface Filter {
  field: string;
  op: FilterOp;
  value: FilterValue | FilterValue[];
}

/** One validated sort key. */
export interface OrderBy {
  field: string;
  direction: 'asc' | 'desc';
}

/** A validated list request. */
export interface ListQuery {
  filters: Filter[];
  /** Requested fields; undefined means all. */
  fields?: string[];
  start: number;
  pageLength: number;
  orderBy: OrderBy[];
  /** The page starts after this record (`cursor`; default order only, `start` then 0). */
  after?: ListCursor;
}

/** Columns every record has besides its DocType's fields (`modified_by` may be empty). */
export const STANDARD_FIELDS = ['name', 'creation', 'modified', 'modified_by'] as const;

/**
 * How many records an unfiltered list counts exactly. Counting walks every record of the DocType, so beyond
 * this bound the list answers `total` = the bound with `total_is_lower_bound: true` ("1,000+"): its cost
 * then no longer grows with the table. A filtered list's total stays exact, counted on its filter's index
 * (docs/performance.md#lists-on-large-tables).
 */
export const EXACT_TOTAL_LIMIT = 1_000;

/** Default and largest `limit_page_length`. */
export const DEFAULT_PAGE_LENGTH = 20;
export const MAX_PAGE_LENGTH = 500;
const MAX_FILTERS = 50;
const MAX_IN_VALUES = 500;
const MAX_ORDER_KEYS = 5;

/** How a field's values compare in SQL. */
export type FieldKind = 'text' | 'number' | 'boolean' | 'timestamp';

const NUMERIC: ReadonlySet<string> = new Set<FieldType>(['int', 'float', 'currency']);

/**
 * The kind of a field of `doctype` (standard columns included), or undefined when the DocType has no such
 * field: the one gate every field name from a request passes before it reaches SQL (as a parameter).
 */
export function fieldKind(doctype: DocTypeDefinition, field: string): FieldKind | undefined {
  if (field === 'name' || field === 'modified_by') return 'text';
  if (field === 'creation' || field === 'modified') return 'timestamp';
  const def = doctype.fields.find((f) => f.name === field);
  if (!def) return undefined;
  return kindOfType(def.type);
}

/** The kind of a DocType field of `type` (its schema's `type`), as filters compare it. */
export function kindOfType(type: string): FieldKind {
  if (NUMERIC.has(type)) return 'number';
  if (type === 'boolean') return 'boolean';
  return 'text';
}

/** Whether a filter on a field of `kind` takes `value`, by the rules the list API checks it with. */
export function takesFilterValue(kind: FieldKind, value: unknown): boolean {
  try {
    checkValue(kind, value, 'value');
    return true;
  } catch {
    return false;
  }
}

function bad(code: ErrorCode, message: string): PlatformError {
  return new PlatformError(code, message, { status: 400 });
}

function parseJsonParam(raw: string, code: ErrorCode, what: string): unknown {
  try {
    return parseSafeJson(raw, { maxDepth: 4 });
  } catch {
    throw bad(code, `${what} is not valid JSON.`);
  }
}

function knownField(doctype: DocTypeDefinition, field: unknown, code: ErrorCode, where: string): string {
  if (typeof field !== 'string' || fieldKind(doctype, field) === undefined) {
    throw bad(code, `${where} names a field ${doctype.name} does not have.`);
  }
  return field;
}

/** The first and last instants a timestamp filter may name (UTC), both as the database stores them. */
export const EARLIEST_TIME = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_TIME = Date.parse('9999-12-31T23:59:59.999Z');

function checkValue(kind: FieldKind, value: unknown, where: string): FilterValue {
  if (value === null) return null;
  switch (kind) {
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n))
        throw bad('invalid_filters', `${where} must be a number.`);
      return n;
    }
    case 'boolean':
      if (value === true || value === 1 || value === 'true' || value === '1') return true;
      if (value === false || value === 0 || value === 'false' || value === '0') return false;
      throw bad('invalid_filters', `${where} must be true or false.`);
    case 'timestamp': {
      const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
      // Years 1 to 9999 only: the database has no year 0 and reads no six-digit year, so a time outside them
      // (`0000-01-01`, `+010000-01-01`) would be a 500 there rather than a bad filter here.
      if (Number.isNaN(time) || time < EARLIEST_TIME || time > LATEST_TIME) {
        throw bad('invalid_filters', `${where} must be a date-time string from year 1 to 9999.`);
      }
      return new Date(time).toISOString();
    }
    default:
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw bad('invalid_filters', `${where} must be a string.`);
  }
}

function parseFilter(doctype: DocTypeDefinition, entry: unknown, i: number): Filter {
  const where = `filters[${i}]`;
  if (!Array.isArray(entry) || entry.length !== 3)
    throw bad('invalid_filters', `${where} must be [field, op, value].`);
  const field = knownField(doctype, entry[0], 'invalid_filters', where);
  const op = entry[1];
  if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op.toLowerCase())) {
    throw bad('invalid_filters', `${where} has an operator other than ${FILTER_OPS.join(' ')}.`);
  }
  const kind = fieldKind(doctype, field)!;
  const normalized = op.toLowerCase() as FilterOp;
  if (normalized === 'in') {
    const list = entry[2];
    if (!Array.isArray(list) || list.length > MAX_IN_VALUES) {
      throw bad('invalid_filters', `${where} needs a list of at most ${MAX_IN_VALUES} values for "in".`);
    }
    return { field, op: normalized, value: list.map((v, j) => checkValue(kind, v, `${where}[2][${j}]`)) };
  }
  if (normalized === 'like' && typeof entry[2] !== 'string') {
    throw bad('invalid_filters', `${where} needs a string pattern for "like".`);
  }
  const value = checkValue(normalized === 'like' ? 'text' : kind, entry[2], `${where} value`);
  if (value === null && normalized !== '=' && normalized !== '!=') {
    throw bad('invalid_filters', `${where} can compare with null only through = or !=.`);
  }
  if (normalized === 'like') return { field, op: normalized, value: literalTrailingEscape(value as string) };
  return { field, op: normalized, value };
}

/**
 * Parses `filters`: a JSON list `[[field, op, value], ...]` or an object `{ field: value }` (equality).
 * Every field must exist on the DocType and every value must suit the field's type; anything else is 400
 * `invalid_filters` naming the position, never the value.
 */
export function parseFilters(doctype: DocTypeDefinition, raw: string | undefined): Filter[] {
  if (raw === undefined || raw.trim() === '') return [];
  const parsed = parseJsonParam(raw, 'invalid_filters', 'filters');
  if (typeof parsed !== 'object' || parsed === null) {
    throw bad(
      'invalid_filters',
      'filters must be a list of [field, op, value] or an object of field: value.',
    );
  }
  const entries: unknown[] = Array.isArray(parsed)
    ? parsed
    : Object.entries(parsed).map(([field, value]) => [field, '=', value]);
  if (entries.length > MAX_FILTERS)
    throw bad('invalid_filters', `At most ${MAX_FILTERS} filters are allowed.`);
  return entries.map((entry, i) => parseFilter(doctype, entry, i));
}

function parseFields(doctype: DocTypeDefinition, raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const parsed = raw.trim().startsWith('[')
    ? parseJsonParam(raw, 'invalid_fields', 'fields')
    : raw.split(',').map((s) => s.trim());
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > 100) {
    throw bad('invalid_fields', 'fields must be a non-empty JSON list of field names.');
  }
  if (parsed.length === 1 && parsed[0] === '*') return undefined;
  return [...new Set(parsed.map((f, i) => knownField(doctype, f, 'invalid_fields', `fields[${i}]`)))];
}

function parseOrderBy(doctype: DocTypeDefinition, raw: string | undefined): OrderBy[] {
  if (raw === undefined || raw.trim() === '') return [{ field: 'modified', direction: 'desc' }];
  const parts = raw.split(',');
  if (parts.length > MAX_ORDER_KEYS) throw bad('invalid_order_by', `At most ${MAX_ORDER_KEYS} sort keys.`);
  return parts.map((part, i) => {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s+(asc|desc))?\s*$/i.exec(part);
    if (!match) throw bad('invalid_order_by', `order_by key ${i + 1} must be "field asc" or "field desc".`);
    const field = knownField(doctype, match[1], 'invalid_order_by', `order_by key ${i + 1}`);
    return { field, direction: (match[2]?.toLowerCase() ?? 'asc') as 'asc' | 'desc' };
  });
}

function parseInteger(
  raw: string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw bad('invalid_paging', `${name} must be an integer from ${min} to ${max}.`);
  }
  return Number(raw);
}

/**
 * Parses the list parameters of `GET /api/resource/<DocType>` (docs/http-api.md#list-parameters): `filters`,
 * `fields`, `limit_start` (default 0), `limit_page_length` (default 20, at most 500), `order_by`
 * (`field asc|desc`, comma-separated; default `modified desc`) and `cursor` (a page's `next_cursor`). Unknown fields anywhere are 400
 * (`invalid_filters`, `invalid_fields`, `invalid_order_by`); bad paging is 400 `invalid_paging`.
 */
export function parseListQuery(
  doctype: DocTypeDefinition,
  params: Record<string, string | undefined>,
): ListQuery {
  const query: ListQuery = {
    filters: parseFilters(doctype, params.filters),
    fields: parseFields(doctype, params.fields),
    start: parseInteger(params.limit_start, 'limit_start', 0, 0, 100_000_000),
    pageLength: parseInteger(
      params.limit_page_length,
      'limit_page_length',
      DEFAULT_PAGE_LENGTH,
      1,
      MAX_PAGE_LENGTH,
    ),
    orderBy: parseOrderBy(doctype, params.order_by),
  };
  if (params.cursor === undefined || params.cursor === '') return query;
  if (!isDefaultOrder(query.orderBy)) {
    throw bad('invalid_paging', 'cursor pages the default order (modified desc) only.');
  }
  if (query.start !== 0) throw bad('invalid_paging', 'cursor and limit_start cannot be combined.');
  return { ...query, after: decodeListCursor(params.cursor) };
}

/** Whether `orderBy` is the default order, the only one a cursor pages through. */
export function isDefaultOrder(orderBy: readonly OrderBy[]): boolean {
  return orderBy.length === 1 && orderBy[0]!.field === 'modified' && orderBy[0]!.direction === 'desc';
}

/**
 * A `like` pattern whose last backslash escapes nothing, with that backslash made literal (doubled): the
 * database refuses a pattern ending in its escape character (22025, which was a 500), and the in-memory
 * store already reads a lone trailing backslash as itself.
 */
function literalTrailingEscape(pattern: string): string {
  let trailing = 0;
  while (trailing < pattern.length && pattern[pattern.length - 1 - trailing] === '\\') trailing++;
  return trailing % 2 === 1 ? `${pattern}\\` : pattern;
}
