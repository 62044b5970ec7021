/**
 * What the server's encryption at rest refuses, refused offline too. The server keeps `pii` and `encrypted`
 * values as ciphertext with a blind index (backend/vault/encrypted-record-store.ts), so a list may only test
 * them for equality (`=`, `!=`, `in`) and never sorts, compares, matches a pattern on or sums them: 400
 * `field_encrypted` (docs/security.md#personal-data-at-rest). The offline backend cannot run that store (its
 * keys and blind index are Node's crypto), and its in-memory records hold plain values that any query could
 * reach: without this guard a `contains` filter on an email would work offline and fail on the server.
 */

import type { ListQuery } from '../../backend/data/list-query';
import type { RecordStore, SumOptions } from '../../backend/data/records';
import { PlatformError } from '../../backend/http/errors';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import { flaggedFieldNames } from '../../src/protocol';

/** Operators a blind index can answer, as on the server. */
const EQUALITY_OPS: ReadonlySet<string> = new Set(['=', '!=', 'in']);

/** The server's refusal, in its words (backend/vault/encrypted-record-store.ts). */
function notQueryable(doctype: DocTypeDefinition, field: string, what: string): PlatformError {
  return new PlatformError(
    'field_encrypted',
    `${field} of ${doctype.name} is encrypted at rest: it can be filtered with =, != or in, not ${what}.`,
    { status: 400 },
  );
}

/** Throws as the server does for a list query a blind index cannot answer. */
function checkList(doctype: DocTypeDefinition, query: ListQuery): void {
  const flagged = new Set(flaggedFieldNames(doctype));
  if (flagged.size === 0) return;
  for (const key of query.orderBy) {
    if (flagged.has(key.field)) throw notQueryable(doctype, key.field, 'sorted');
  }
  for (const filter of query.filters) {
    if (flagged.has(filter.field) && !EQUALITY_OPS.has(filter.op)) {
      throw notQueryable(doctype, filter.field, `"${filter.op}"`);
    }
  }
}

/**
 * `inner` with the server's refusals of queries on flagged fields (see the file comment); everything else is
 * `inner`'s own, optional methods included.
 */
export function refuseFlaggedQueries(
  inner: RecordStore,
  doctypeNamed: (name: string) => DocTypeDefinition | undefined,
): RecordStore {
  const list: RecordStore['list'] = async (doctype, query, view) => {
    checkList(doctype, query);
    return inner.list(doctype, query, view);
  };
  const sum = (doctype: string, fields: readonly string[], options?: SumOptions): Promise<number> => {
    const definition = doctypeNamed(doctype);
    if (definition) {
      const flagged = new Set(flaggedFieldNames(definition));
      const field = [...fields, ...(options?.whereIn ? [options.whereIn.field] : [])].find((f) =>
        flagged.has(f),
      );
      if (field) throw notQueryable(definition, field, 'summed');
    }
    return inner.sum(doctype, fields, options);
  };
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'list') return list;
      if (key === 'sum') return sum;
      const value: unknown = Reflect.get(target, key, target);
      // Bound to the store itself: its methods use its private fields.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
