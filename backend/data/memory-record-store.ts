import type { DocTypeDefinition } from '../../src/contract/doctype';
import { encodeListCursor } from './list-cursor';
import {
  EXACT_TOTAL_LIMIT,
  type FieldKind,
  type Filter,
  fieldKind,
  isDefaultOrder,
  type ListQuery,
} from './list-query';
import type { DocRecord, ListPage, RecordStore, SumOptions } from './records';

type Comparable = string | number | boolean;

/** A field's value as the database compares it: numbers as numbers, missing and null as null. */
function fieldValue(record: DocRecord, field: string, kind: FieldKind | undefined): Comparable | null {
  const raw = record[field];
  if (raw === undefined || raw === null) return null;
  if (kind === 'number') return Number(raw);
  if (kind === 'boolean') return raw === true || raw === 'true';
  return raw as Comparable;
}

function compare(a: Comparable, b: Comparable): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

const escapeRegExp = (ch: string) => ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A `like` pattern as a case-insensitive regular expression over the whole value, as SQL `ILIKE` reads it:
 * `%` any run, `_` one character, and a backslash makes the next character literal.
 */
function likeToRegExp(pattern: string): RegExp {
  let source = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\\' && i + 1 < chars.length) source += escapeRegExp(chars[++i]!);
    else source += ch === '%' ? '.*' : ch === '_' ? '.' : escapeRegExp(ch);
  }
  return new RegExp(`^${source}$`, 'isu');
}

function matches(doctype: DocTypeDefinition, record: DocRecord, filter: Filter): boolean {
  const kind = fieldKind(doctype, filter.field);
  const actual = fieldValue(record, filter.field, kind);
  if (filter.op === 'in') {
    return actual !== null && (filter.value as unknown[]).some((v) => v !== null && v === actual);
  }
  if (filter.op === 'like') {
    return actual !== null && likeToRegExp(String(filter.value)).test(String(actual));
  }
  const value = filter.value as Comparable | null;
  if (value === null) return filter.op === '=' ? actual === null : actual !== null;
  if (filter.op === '!=') return actual === null || actual !== value;
  if (actual === null) return false;
  const c = compare(actual, value);
  switch (filter.op) {
    case '=':
      return c === 0;
    case '<':
      return c < 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    default:
      return c >= 0;
  }
}

function project(record: DocRecord, fields?: string[]): DocRecord {
  if (!fields) return { ...record };
  return Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f]])) as DocRecord;
}

/** Options of {@link MemoryRecordStore}. */
export interface MemoryRecordStoreOptions {
  /** Clock of `creation` and `modified`; default now. */
  now?: () => Date;
}

/**
 * The records of every DocType held in memory: the record store of the offline mocks, where no database can
 * run. It gives list queries exactly the meaning `DbRecordStore` gives them in SQL (see {@link RecordStore}).
 */
export class MemoryRecordStore implements RecordStore {
  readonly #tables = new Map<string, Map<string, DocRecord>>();
  readonly #series = new Map<string, number>();
  readonly #now: () => Date;

  constructor(options: MemoryRecordStoreOptions = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  #table(doctype: string): Map<string, DocRecord> {
    let table = this.#tables.get(doctype);
    if (!table) {
      table = new Map();
      this.#tables.set(doctype, table);
    }
    return table;
  }

  async list(doctype: DocTypeDefinition, query: ListQuery): Promise<ListPage> {
    const rows = [...this.#table(doctype.name).values()].filter((r) =>
      query.filters.every((f) => matches(doctype, r, f)),
    );
    const keys = query.orderBy.map((o) => ({ ...o, kind: fieldKind(doctype, o.field) }));
    rows.sort((a, b) => {
      for (const key of keys) {
        const x = fieldValue(a, key.field, key.kind);
        const y = fieldValue(b, key.field, key.kind);
        // NULLS LAST in both directions, as the SQL does.
        if (x === null || y === null) {
          if (x !== y) return x === null ? 1 : -1;
          continue;
        }
        const c = compare(x, y);
        if (c !== 0) return key.direction === 'desc' ? -c : c;
      }
      return compare(a.name, b.name);
    });
    const after = query.after;
    // After the cursor's record in `modified DESC, name` order, as the database store reads it.
    const from = after
      ? rows.filter((r) => {
          const modified = Date.parse(String(r.modified));
          const at = Date.parse(after.modified);
          return modified < at || (modified === at && compare(r.name, after.name) > 0);
        })
      : rows;
    const picked = from.slice(query.start, query.start + query.pageLength);
    const data = picked.map((r) => project(r, query.fields));
    const last = picked.at(-1);
    const next =
      isDefaultOrder(query.orderBy) && last && data.length === query.pageLength
        ? { next_cursor: encodeListCursor({ modified: String(last.modified), name: last.name }) }
        : {};
    // Capped as the database store caps it (an unfiltered list, not on its last page, which tells the
    // total by itself), so the offline Desk shows what the server would.
    const lastPage = !after && data.length < query.pageLength && (data.length > 0 || query.start === 0);
    if (query.filters.length === 0 && !lastPage && rows.length > EXACT_TOTAL_LIMIT) {
      return { data, total: EXACT_TOTAL_LIMIT, total_is_lower_bound: true, ...next };
    }
    return { data, total: rows.length, ...next };
  }

  async get(doctype: DocTypeDefinition, name: string): Promise<DocRecord | undefined> {
    const record = this.#table(doctype.name).get(name);
    return record && { ...record };
  }

  async insert(
    doctype: DocTypeDefinition,
    data: Record<string, unknown>,
    by?: string,
    name?: string,
  ): Promise<DocRecord> {
    return this.insertAt(doctype, data, this.#now(), by, name);
  }

  /** See {@link RecordStore.nextName}. */
  async nextName(doctype: DocTypeDefinition): Promise<string> {
    return this.#takeName(doctype);
  }

  #takeName(doctype: DocTypeDefinition): string {
    const next = (this.#series.get(doctype.namePrefix) ?? 0) + 1;
    this.#series.set(doctype.namePrefix, next);
    return `${doctype.namePrefix}-${String(next).padStart(5, '0')}`;
  }

  /**
   * Stores a new record created and modified at `at` (seed data with fixed dates), by `by` when given, under
   * `name` when given (taken with {@link nextName}).
   */
  insertAt(
    doctype: DocTypeDefinition,
    data: Record<string, unknown>,
    at: Date,
    by?: string,
    name?: string,
  ): DocRecord {
    const stamp = at.toISOString();
    const record: DocRecord = {
      name: name ?? this.#takeName(doctype),
      ...structuredClone(data),
      creation: stamp,
      modified: stamp,
      ...(by ? { modified_by: by } : {}),
    };
    this.#table(doctype.name).set(record.name, record);
    return { ...record };
  }

  async update(
    doctype: DocTypeDefinition,
    name: string,
    data: Record<string, unknown>,
    by?: string,
    keep: readonly string[] = [],
  ): Promise<DocRecord | undefined> {
    const table = this.#table(doctype.name);
    const current = table.get(name);
    if (!current) return undefined;
    const kept = Object.fromEntries(keep.filter((k) => k in current).map((k) => [k, current[k]]));
    const record: DocRecord = {
      name,
      ...structuredClone(data),
      ...kept,
      creation: current.creation,
      modified: this.#now().toISOString(),
      ...(by ? { modified_by: by } : {}),
    };
    table.set(name, record);
    return { ...record };
  }

  async delete(doctype: DocTypeDefinition, name: string): Promise<DocRecord | undefined> {
    const table = this.#table(doctype.name);
    const current = table.get(name);
    table.delete(name);
    return current;
  }

  /** No transaction in memory: `work` runs on this store, each write on its own (`tx` undefined). */
  atomically<T>(work: (store: RecordStore, tx: undefined) => Promise<T>): Promise<T> {
    return work(this, undefined);
  }

  async count(doctype: string, equals: Record<string, unknown> = {}): Promise<number> {
    let n = 0;
    for (const record of this.#table(doctype).values()) {
      if (Object.entries(equals).every(([k, v]) => record[k] === v)) n++;
    }
    return n;
  }

  async sum(doctype: string, fields: readonly string[], options: SumOptions = {}): Promise<number> {
    let total = 0;
    for (const record of this.#table(doctype).values()) {
      const only = options.whereIn;
      if (only && !only.values.includes(String(record[only.field] ?? '\u0000'))) continue;
      const values = fields.map((f) => record[f]);
      if (values.some((v) => v === undefined || v === null)) continue;
      total += values.reduce<number>((p, v) => p * Number(v), 1);
    }
    return total;
  }

  /** Removes every record and restarts every naming series. */
  clear(): void {
    this.#tables.clear();
    this.#series.clear();
  }

  /** Every record and naming series as plain data (the offline backend keeps it across page reloads). */
  snapshot(): MemoryRecordsSnapshot {
    return {
      tables: [...this.#tables].map(([doctype, rows]) => [
        doctype,
        [...rows.values()].map((r) => ({ ...r })),
      ]),
      series: [...this.#series],
    };
  }

  /** Replaces every record and naming series with `snapshot`'s. */
  restore(snapshot: MemoryRecordsSnapshot): void {
    this.clear();
    for (const [doctype, rows] of snapshot.tables) {
      this.#tables.set(doctype, new Map(rows.map((r) => [String(r.name), { ...r }])));
    }
    for (const [prefix, next] of snapshot.series) this.#series.set(prefix, next);
  }
}

/** What {@link MemoryRecordStore.snapshot} returns: records per DocType, and the last number per series. */
export interface MemoryRecordsSnapshot {
  tables: [doctype: string, records: DocRecord[]][];
  series: [prefix: string, last: number][];
}
