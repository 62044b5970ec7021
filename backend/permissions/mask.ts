/**
 * Masking of personal data on the read path (docs/permissions.md#personal-data): a reader without
 * `read_pii` on a DocType receives every flagged field (`pii` or `encrypted`) replaced by one fixed mask,
 * and the response names the fields it masked. Pure functions over plain records.
 */

import { flaggedFieldNames, PII_MASK } from '../../src/protocol';

/** The value a masked field carries (src/protocol): fixed, so clients recognise it. */
export { PII_MASK };

/** The part of a DocType masking needs: its fields and their `pii` and `encrypted` flags. */
export interface MaskableDocType {
  name: string;
  fields: ReadonlyArray<{ name: string; pii?: boolean; encrypted?: boolean }>;
}

/**
 * Names of a DocType's fields masked to a reader without `read_pii`: the flagged ones, `pii` or `encrypted`,
 * both stored encrypted and revealed only with that right (docs/permissions.md#personal-data).
 */
export function maskableFields(doctype: MaskableDocType): string[] {
  return flaggedFieldNames(doctype);
}

/**
 * A copy of `record` with each pii field that holds a value replaced by {@link PII_MASK}. A field the record
 * does not carry stays absent (a reader learns only that a value exists, as the Desk shows it). A record
 * whose pii fields are all masked or empty already (the record store masks what it does not decrypt) is
 * returned as it is, not copied.
 */
export function maskRecord<R extends Record<string, unknown>>(record: R, fields: readonly string[]): R {
  if (fields.every((f) => record[f] === undefined || record[f] === null || record[f] === PII_MASK)) {
    return record;
  }
  const copy: Record<string, unknown> = { ...record };
  for (const field of fields) {
    if (copy[field] !== undefined && copy[field] !== null) copy[field] = PII_MASK;
  }
  return copy as R;
}

/** Masks every record of a list; see {@link maskRecord}. */
export function maskRecords<R extends Record<string, unknown>>(
  records: readonly R[],
  fields: readonly string[],
): R[] {
  return fields.length === 0 ? [...records] : records.map((r) => maskRecord(r, fields));
}

/**
 * The pii fields of a write body that carry the mask (a client echoing a masked read back): such a write is
 * refused, so the mask is never stored in place of the real value. The body is checked before the model
 * validates it, so the mask is recognised in any form the model could turn into it: with whitespace around
 * it (a `.trim()`) or in another Unicode form of the same text.
 */
export function maskedValuesIn(body: Record<string, unknown>, doctype: MaskableDocType): string[] {
  return maskableFields(doctype).filter((field) => isMask(body[field]));
}

function isMask(value: unknown): boolean {
  if (value === PII_MASK) return true;
  return typeof value === 'string' && value.length < 64 && value.normalize('NFKC').trim() === PII_MASK;
}
