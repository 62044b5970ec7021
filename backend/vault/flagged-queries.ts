/**
 * What a blind index can answer of a query on `pii` and `encrypted` fields, and the refusal of the rest
 * (docs/security.md#personal-data-at-rest): equality (`=`, `!=`, `in`) only; sorts, comparisons, patterns
 * and sums are 400 `field_encrypted`. Free of Node modules, so the offline backend (mocks/) refuses the same
 * queries with the same words as the server's encrypted record store.
 */
import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { Filter, ListQuery } from '../data/list-query';
import type { SumOptions } from '../data/records';
import { PlatformError } from '../http/errors';

/** Operators a blind index can answer: equality, its negation and lists of equalities. */
export const BLIND_INDEX_OPS: ReadonlySet<Filter['op']> = new Set(['=', '!=', 'in']);

/** The refusal of a query on `field`, a flagged field of `doctype`: `what` says what was asked. */
export function notQueryable(doctype: DocTypeDefinition, field: string, what: string): PlatformError {
  return new PlatformError(
    'field_encrypted',
    `${field} of ${doctype.name} is encrypted at rest: it can be filtered with =, != or in, not ${what}.`,
    { status: 400 },
  );
}

/** Throws for a sort, or a filter other than equality, on one of `flagged` (fields of `doctype`). */
export function refuseUnindexedList(
  doctype: DocTypeDefinition,
  flagged: ReadonlySet<string>,
  query: Pick<ListQuery, 'filters' | 'orderBy'>,
): void {
  for (const key of query.orderBy) {
    if (flagged.has(key.field)) throw notQueryable(doctype, key.field, 'sorted');
  }
  for (const filter of query.filters) {
    if (flagged.has(filter.field) && !BLIND_INDEX_OPS.has(filter.op)) {
      throw notQueryable(doctype, filter.field, `"${filter.op}"`);
    }
  }
}

/** Throws when a sum adds, or selects by, one of `flagged` (fields of `doctype`). */
export function refuseFlaggedSum(
  doctype: DocTypeDefinition,
  flagged: ReadonlySet<string>,
  fields: readonly string[],
  options?: SumOptions,
): void {
  const field = [...fields, ...(options?.whereIn ? [options.whereIn.field] : [])].find((f) => flagged.has(f));
  if (field) throw notQueryable(doctype, field, 'summed');
}
