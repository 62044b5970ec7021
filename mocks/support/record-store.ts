/**
 * An in-memory record store for the mocks (the browser worker cannot run PGlite). It applies a list query
 * already validated by the backend's own `parseListQuery`, with the data API's semantics: `like` with `%`
 * wildcards (case-insensitive), `in`, comparisons, `order_by`, paging and the total before paging.
 */
import type { ListQuery } from '../../backend/data/list-query';

/** A stored record: its `name`, timestamps, and the DocType's fields. */
export type MockRecord = Record<string, unknown> & { name: string; creation: string; modified: string };

/** Records by DocType. */
export interface MockRecordStore {
  list(doctype: string, query: ListQuery): { data: Record<string, unknown>[]; total: number };
  get(doctype: string, name: string): MockRecord | undefined;
  /** Stores a new record named `<prefix>-<n>`, created and modified at `at` (default now). */
  insert(doctype: string, namePrefix: string, values: Record<string, unknown>, at?: string): MockRecord;
  update(doctype: string, name: string, values: Record<string, unknown>): MockRecord | undefined;
  remove(doctype: string, name: string): MockRecord | undefined;
  clear(): void;
}

function likeToRegExp(pattern: string): RegExp {
  const source = pattern
    .split('')
    .map((ch) => (ch === '%' ? '.*' : ch === '_' ? '.' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 'is');
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

function matches(record: Record<string, unknown>, filter: ListQuery['filters'][number]): boolean {
  const actual = record[filter.field] ?? null;
  const value = filter.value;
  switch (filter.op) {
    case '=':
      return actual === value;
    case '!=':
      return actual !== value;
    case '<':
      return actual !== null && compare(actual, value) < 0;
    case '>':
      return actual !== null && compare(actual, value) > 0;
    case '<=':
      return actual !== null && compare(actual, value) <= 0;
    case '>=':
      return actual !== null && compare(actual, value) >= 0;
    case 'like':
      return typeof actual === 'string' && likeToRegExp(String(value)).test(actual);
    case 'in':
      return Array.isArray(value) && value.includes(actual as never);
  }
}

/** Creates an empty store. Names are `<prefix>-00001`, ... per DocType. */
export function createRecordStore(): MockRecordStore {
  const tables = new Map<string, Map<string, MockRecord>>();
  const counters = new Map<string, number>();
  const table = (doctype: string) => {
    let t = tables.get(doctype);
    if (!t) {
      t = new Map();
      tables.set(doctype, t);
    }
    return t;
  };
  return {
    list(doctype, query) {
      const rows = [...table(doctype).values()].filter((r) => query.filters.every((f) => matches(r, f)));
      rows.sort((a, b) => {
        for (const key of query.orderBy) {
          const c = compare(a[key.field], b[key.field]);
          if (c !== 0) return key.direction === 'desc' ? -c : c;
        }
        return 0;
      });
      const page = rows.slice(query.start, query.start + query.pageLength);
      const data = query.fields
        ? page.map((r) => Object.fromEntries(['name', ...query.fields!].map((f) => [f, r[f] ?? null])))
        : page.map((r) => ({ ...r }));
      return { data, total: rows.length };
    },
    get: (doctype, name) => {
      const r = table(doctype).get(name);
      return r && { ...r };
    },
    insert(doctype, namePrefix, values, at) {
      const next = (counters.get(doctype) ?? 0) + 1;
      counters.set(doctype, next);
      const now = at ?? new Date().toISOString();
      const record: MockRecord = {
        ...values,
        name: `${namePrefix}-${String(next).padStart(5, '0')}`,
        creation: now,
        modified: now,
      };
      table(doctype).set(record.name, record);
      return { ...record };
    },
    update(doctype, name, values) {
      const current = table(doctype).get(name);
      if (!current) return undefined;
      // `values` is the whole validated document (the handler merged it), so cleared fields go away.
      const record: MockRecord = {
        ...values,
        name,
        creation: current.creation,
        modified: new Date().toISOString(),
      };
      table(doctype).set(name, record);
      return { ...record };
    },
    remove(doctype, name) {
      const current = table(doctype).get(name);
      table(doctype).delete(name);
      return current;
    },
    clear() {
      tables.clear();
      counters.clear();
    },
  };
}
