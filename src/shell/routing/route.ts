/**
 * The Desk's routes live in the URL hash (`/desk/#/app/crm.Customer/new`), so every screen is a deep link
 * the backend never has to know about: it serves one `index.html` at `/desk/` whatever the route. A list's
 * state (search, filters, sort, page) is the hash's query (`#/app/crm.Customer?status=Active&sort=
 * customer_name:desc&page=2`), so a reload or a shared link shows the same page of the same list. The filter
 * builder's conditions are `filter=<field>:<op>:<value>` (repeated; an `in` value is a JSON list) and the
 * chosen columns `columns=<field>,<field>` (docs/desk.md#filters).
 */

import type { ListCondition, ListConditionOp, ListSort, ListState } from '../../contract/remote';
import { type AuditFilters, DAY_PATTERN } from '../audit/audit-filters';

export type { ListCondition, ListConditionOp, ListSort, ListState };

/** Page size of a list when the URL names none. */
export const DEFAULT_PAGE_SIZE = 20;

/** Query keys the list state uses itself; a field of the same name cannot be filtered from the URL. */
const RESERVED = new Set(['q', 'sort', 'page', 'size', 'filter', 'columns']);

const CONDITION_OPS: readonly ListConditionOp[] = ['eq', 'ne', 'like', 'set', 'lt', 'lte', 'gt', 'gte', 'in'];

/** A condition as the URL keeps it: `field:op:value`, an `in` value as a JSON list of strings. */
export function formatCondition(condition: ListCondition): string {
  const value = Array.isArray(condition.value) ? JSON.stringify(condition.value) : condition.value;
  return `${condition.field}:${condition.op}:${value}`;
}

/** Parses {@link formatCondition}'s text; undefined when it is not a condition. */
export function parseCondition(text: string): ListCondition | undefined {
  const match = /^([A-Za-z_][A-Za-z0-9_]{0,63}):([a-z]+):([\s\S]*)$/.exec(text);
  if (!match) return undefined;
  const [, field, op, raw] = match as unknown as [string, string, ListConditionOp, string];
  if (!CONDITION_OPS.includes(op)) return undefined;
  if (op !== 'in') return { field, op, value: raw };
  try {
    const list: unknown = JSON.parse(raw);
    if (Array.isArray(list) && list.every((v) => typeof v === 'string')) return { field, op, value: list };
  } catch {
    // Not a list: not a condition.
  }
  return undefined;
}

/** A screen of the Desk. */
export type DeskRoute =
  | { kind: 'home' }
  | { kind: 'users' }
  | { kind: 'releases' }
  | { kind: 'audit'; filters?: AuditFilters; page?: number }
  | { kind: 'list'; docType: string; state?: ListState }
  | { kind: 'new'; docType: string }
  | { kind: 'edit'; docType: string; id: string }
  /** A saved record laid out for paper (`#/app/<doctype>/<name>/print`). */
  | { kind: 'print'; docType: string; id: string };

/** An empty list state (first page, nothing filtered). */
export function emptyListState(): ListState {
  return { filters: {}, page: 1, pageSize: DEFAULT_PAGE_SIZE };
}

/** Parses the query part of a list route; unknown or malformed values fall back on the defaults. */
export function parseListState(query: string): ListState {
  const params = new URLSearchParams(query);
  const state = emptyListState();
  for (const [key, value] of params) {
    if (!value) continue;
    if (key === 'q') state.q = value;
    else if (key === 'page') state.page = positive(value) ?? 1;
    else if (key === 'size') state.pageSize = positive(value) ?? DEFAULT_PAGE_SIZE;
    else if (key === 'sort') {
      const [field, order] = value.split(':');
      if (field) state.sort = { field, order: order === 'desc' ? 'desc' : 'asc' };
    } else if (key === 'filter') {
      const condition = parseCondition(value);
      if (condition) state.conditions = [...(state.conditions ?? []), condition];
    } else if (key === 'columns') {
      const columns = value.split(',').filter((c) => /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(c));
      if (columns.length > 0) state.columns = columns;
    } else if (!RESERVED.has(key)) state.filters[key] = value;
  }
  return state;
}

/** Formats a list state as a query string (without `?`); defaults are left out so plain lists stay plain. */
export function formatListState(state: ListState | undefined): string {
  if (!state) return '';
  const params = new URLSearchParams();
  if (state.q?.trim()) params.set('q', state.q);
  for (const [field, value] of Object.entries(state.filters)) {
    if (value.trim() && !RESERVED.has(field)) params.set(field, value);
  }
  for (const condition of state.conditions ?? []) params.append('filter', formatCondition(condition));
  if (state.columns?.length) params.set('columns', state.columns.join(','));
  if (state.sort) params.set('sort', `${state.sort.field}:${state.sort.order}`);
  if (state.page > 1) params.set('page', String(state.page));
  if (state.pageSize !== DEFAULT_PAGE_SIZE) params.set('size', String(state.pageSize));
  return params.toString();
}

function positive(value: string): number | undefined {
  return /^\d{1,6}$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}

/**
 * The filters the Audit page's URL may carry (`#/audit?doctype=crm.Customer&record=CUST-00001&page=2`,
 * `#/audit?from=2026-11-01&to=2026-11-30`).
 */
const AUDIT_FILTERS = ['doctype', 'record', 'user', 'from', 'to'] as const;

function parseAuditRoute(query: string): DeskRoute {
  const params = new URLSearchParams(query);
  const filters: AuditFilters = {};
  for (const key of AUDIT_FILTERS) {
    const value = params.get(key)?.trim();
    // A day that is not one (a typed URL) is left out rather than sent to be refused.
    if (value && ((key !== 'from' && key !== 'to') || DAY_PATTERN.test(value))) filters[key] = value;
  }
  return { kind: 'audit', filters, page: positive(params.get('page') ?? '') ?? 1 };
}

function formatAuditRoute(filters: AuditFilters = {}, page = 1): string {
  const params = new URLSearchParams();
  for (const key of AUDIT_FILTERS) {
    const value = filters[key]?.trim();
    if (value) params.set(key, value);
  }
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return `#/audit${query ? `?${query}` : ''}`;
}

/** Parses a `location.hash` (with or without the leading `#`); anything unknown is home. */
export function parseRoute(hash: string): DeskRoute {
  const raw = hash.replace(/^#/, '').replace(/^\/+/, '');
  const queryAt = raw.indexOf('?');
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt);
  const query = queryAt === -1 ? '' : raw.slice(queryAt + 1);
  const [section, docType, id, ...rest] = path.split('/');
  if (section === 'users' && !docType) return { kind: 'users' };
  if (section === 'releases' && !docType) return { kind: 'releases' };
  if (section === 'audit' && !docType) return parseAuditRoute(query);
  const print = rest.length === 1 && rest[0] === 'print';
  if (section !== 'app' || !docType || (rest.length > 0 && !print)) return { kind: 'home' };
  const decodedDocType = safeDecode(docType);
  if (print) {
    // A new record has nothing to print yet; `new/print` is no route.
    if (!id || id === 'new') return { kind: 'home' };
    return { kind: 'print', docType: decodedDocType, id: safeDecode(id) };
  }
  if (id === undefined || id === '') {
    return { kind: 'list', docType: decodedDocType, state: parseListState(query) };
  }
  if (id === 'new') return { kind: 'new', docType: decodedDocType };
  return { kind: 'edit', docType: decodedDocType, id: safeDecode(id) };
}

/** Formats a route as a hash (`#/app/...`). */
export function formatRoute(route: DeskRoute): string {
  switch (route.kind) {
    case 'home':
      return '#/';
    case 'users':
      return '#/users';
    case 'releases':
      return '#/releases';
    case 'audit':
      return formatAuditRoute(route.filters, route.page);
    case 'list': {
      const query = formatListState(route.state);
      return `#/app/${encodeURIComponent(route.docType)}${query ? `?${query}` : ''}`;
    }
    case 'new':
      return `#/app/${encodeURIComponent(route.docType)}/new`;
    case 'edit':
      return `#/app/${encodeURIComponent(route.docType)}/${encodeURIComponent(route.id)}`;
    case 'print':
      return `#/app/${encodeURIComponent(route.docType)}/${encodeURIComponent(route.id)}/print`;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
