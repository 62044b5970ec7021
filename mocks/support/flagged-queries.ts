/**
 * What the server's encryption at rest refuses, refused offline too, by the same rules
 * (backend/vault/flagged-queries.ts). The server keeps `pii` and `encrypted` values as ciphertext with a
 * blind index (backend/vault/encrypted-record-store.ts), so a list may only test them for equality (`=`,
 * `!=`, `in`) and never sorts, compares, matches a pattern on or sums them: 400 `field_encrypted`
 * (docs/security.md#personal-data-at-rest). The offline backend cannot run that store (its keys and blind
 * index are Node's crypto), and its in-memory records hold plain values that any query could reach:
 * without this guard a `contains` filter on an email would work offline and fail on the server.
 */

import type { RecordStore, SumOptions } from '../../backend/data/records';
import { refuseFlaggedSum, refuseUnindexedList } from '../../backend/vault/flagged-queries';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import { flaggedFieldNames } from '../../src/protocol';

/**
 * `inner` with the server's refusals of queries on flagged fields (see the file comment); everything else is
 * `inner`'s own, optional methods included.
 */
export function refuseFlaggedQueries(
  inner: RecordStore,
  doctypeNamed: (name: string) => DocTypeDefinition | undefined,
): RecordStore {
  const list: RecordStore['list'] = async (doctype, query, view) => {
    refuseUnindexedList(doctype, new Set(flaggedFieldNames(doctype)), query);
    return inner.list(doctype, query, view);
  };
  const sum = (doctype: string, fields: readonly string[], options?: SumOptions): Promise<number> => {
    const definition = doctypeNamed(doctype);
    if (definition) refuseFlaggedSum(definition, new Set(flaggedFieldNames(definition)), fields, options);
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
