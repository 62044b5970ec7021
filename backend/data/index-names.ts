/**
 * Names of the `records` table's field indexes, apart from the statements that create them
 * (backend/db/record-indexes.ts): the data routes name a unique index when they turn its refusal into 409 `duplicate`,
 * and they also run in the browser's offline mock, where the database's modules do not.
 */
import type { DocTypeDefinition } from '../../src/contract/doctype';

/** Field and DocType names are identifiers; anything else never reaches SQL text. */
export const SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A short, stable index name within Postgres's 63 bytes: `records_<doctype>_<field>[_search]`. */
export function indexName(doctype: string, field: string, suffix: string): string {
  const base = `records_${doctype.replace('.', '_')}_${field}${suffix}`.toLowerCase();
  if (base.length <= 63) return base;
  let hash = 0;
  for (const ch of base) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `${base.slice(0, 54)}_${hash.toString(36)}`;
}

/**
 * The `unique` fields of `doctype` whose values the database itself keeps unique, with a UNIQUE partial
 * index on the field's expression: the plain ones. A flagged (`pii`/`encrypted`) field's stored value is a
 * ciphertext that differs for equal values, so its uniqueness is the write's own check only.
 */
export function uniqueFields(doctype: DocTypeDefinition): string[] {
  return doctype.fields
    .filter((f) => (f as { unique?: boolean }).unique === true && !f.pii && !f.encrypted)
    .map((f) => f.name)
    .filter((name) => SAFE_NAME.test(name));
}

/**
 * The name of the UNIQUE index that keeps `field` of `doctype` unique: what a refused write's error names
 * as its constraint (SQLSTATE 23505), which integrity.ts turns into 409 `duplicate` for that field.
 */
export function uniqueIndexName(doctype: string, field: string): string {
  return indexName(doctype, field, '_unique');
}
