/**
 * Maps Refine's list parameters to the data API's query string (docs/http-api.md#list-parameters):
 * `filters=<json [[field, op, value]]>`, `fields=<json>`, `limit_start`, `limit_page_length`,
 * `order_by=field desc, other asc`. Operators the API has no equivalent for are refused with
 * `unsupported_filter` rather than dropped (a silently dropped filter shows the user the wrong rows).
 */
import type { CrudFilter, CrudSort, Pagination } from '@refinedev/core';
import { SdkError } from '../errors';

/** One data-API filter: `[field, operator, value]`. */
export type ApiFilter = [field: string, operator: string, value: unknown];

const OPERATORS: Record<string, string> = {
  eq: '=',
  ne: '!=',
  lt: '<',
  gt: '>',
  lte: '<=',
  gte: '>=',
  in: 'in',
  contains: 'like',
  null: '=',
  nnull: '!=',
};

/** Field names the API accepts (DocType field names, plus `name`). */
const FIELD = /^[a-z_][a-z0-9_]{0,63}$/i;

/** Refine CrudFilters -> data-API filters (an implicit AND of all). */
export function toApiFilters(filters: readonly CrudFilter[] = []): ApiFilter[] {
  return filters.map((filter) => {
    if (filter.operator === 'or' || filter.operator === 'and' || !('field' in filter)) {
      throw new SdkError('unsupported_filter', `Filter operator "${filter.operator}" is not supported.`);
    }
    const op = OPERATORS[filter.operator];
    if (!op)
      throw new SdkError('unsupported_filter', `Filter operator "${filter.operator}" is not supported.`);
    if (!FIELD.test(filter.field)) {
      throw new SdkError('unsupported_filter', `Filter field "${filter.field}" is not a field name.`);
    }
    // "is empty" / "is set": the API compares with null through = and != (docs/http-api.md#list-parameters).
    if (filter.operator === 'null' || filter.operator === 'nnull')
      return [filter.field, op, null] as ApiFilter;
    if (op === 'in') {
      return [filter.field, op, Array.isArray(filter.value) ? filter.value : [filter.value]] as ApiFilter;
    }
    return [filter.field, op, op === 'like' ? `%${String(filter.value)}%` : filter.value] as ApiFilter;
  });
}

/** Refine sorters -> `order_by` (`field desc, other asc`), or undefined for none. */
export function toOrderBy(sorters: readonly CrudSort[] = []): string | undefined {
  if (sorters.length === 0) return undefined;
  return sorters
    .map((s) => {
      if (!FIELD.test(s.field))
        throw new SdkError('unsupported_filter', `Sort field "${s.field}" is not a field name.`);
      return `${s.field} ${s.order === 'desc' ? 'desc' : 'asc'}`;
    })
    .join(', ');
}

/** Largest page the data API serves (`limit_page_length` is 1..500 there): "every row" for Refine's client mode. */
export const MAX_PAGE_LENGTH = 500;

/**
 * Refine pagination -> `limit_start` / `limit_page_length`. Server mode (Refine's default: page 1 of 10) pages
 * on the server; `client` and `off` ask for the largest page the API serves ({@link MAX_PAGE_LENGTH}).
 */
export function toLimits(pagination: Pagination | undefined): {
  limit_start: number;
  limit_page_length: number;
} {
  const mode = pagination?.mode ?? 'server';
  if (mode !== 'server') return { limit_start: 0, limit_page_length: MAX_PAGE_LENGTH };
  const pageSize = Math.min(MAX_PAGE_LENGTH, Math.max(1, Math.floor(pagination?.pageSize ?? 10)));
  const currentPage = Math.max(1, Math.floor(pagination?.currentPage ?? 1));
  return { limit_start: (currentPage - 1) * pageSize, limit_page_length: pageSize };
}

/** The full query string parameters of a list request. */
export function listQuery(params: {
  pagination?: Pagination;
  sorters?: readonly CrudSort[];
  filters?: readonly CrudFilter[];
  fields?: readonly string[];
}): Record<string, string | number | undefined> {
  const filters = toApiFilters(params.filters);
  return {
    filters: filters.length > 0 ? JSON.stringify(filters) : undefined,
    fields: params.fields?.length ? JSON.stringify(params.fields) : undefined,
    ...toLimits(params.pagination),
    order_by: toOrderBy(params.sorters),
  };
}
