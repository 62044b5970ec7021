/**
 * What the data API's writes send and answer around personal data: the partial update of a record, whose
 * masked values a writer does not send are kept as stored (never opened), and a write's answer by the
 * least-reveal rule (docs/permissions.md#reveals-are-audited).
 */
import type { DocTypeDefinition } from '../../src/contract/doctype';
import { isFlagged, PII_MASK } from '../../src/protocol';
import { maskRecord } from '../permissions/mask';
import type { RecordAccess } from '../permissions/record-access';
import type { DocRecord } from './records';
import { validateDocument } from './validate';

/** A partial update, validated: the fields it writes (`data`) and those it keeps as stored (`keep`). */
export interface PartialUpdate {
  data: Record<string, unknown>;
  keep: string[];
}

/**
 * The record an update stores: the stored fields (`existing`, read with the fields of `unopened` masked),
 * overlaid with the sent ones (`changes`; `null` clears a field), validated. A masked value the request
 * leaves alone is kept as stored (`keep`), outside what is validated and written, so it is never decrypted
 * (docs/security.md#who-can-decrypt-what-where).
 */
export function partialUpdate(
  doctype: DocTypeDefinition,
  existing: DocRecord,
  changes: Record<string, unknown>,
  unopened: readonly string[],
): PartialUpdate {
  const keep = unopened.filter((f) => existing[f] === PII_MASK && !(f in changes));
  const merged: Record<string, unknown> = {};
  for (const field of doctype.fields)
    if (existing[field.name] !== undefined && !keep.includes(field.name))
      merged[field.name] = existing[field.name];
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return { data: validateDocument(doctype, merged, keep), keep };
}

/**
 * The fields an update writes with those it keeps as stored (`keep`), the kept ones as the writer sees them:
 * masked, as the record read before the update had them, so the history finds them unchanged.
 */
export function withKept(data: Record<string, unknown>, keep: readonly string[]): Record<string, unknown> {
  if (keep.length === 0) return data;
  return { ...data, ...Object.fromEntries(keep.map((field) => [field, PII_MASK])) };
}

/**
 * The answer of a write, by the least-reveal rule: in clear only the flagged values the request itself
 * carried (`sent`, as validated and stored) and the caller may read; every other flagged field holding a
 * value is the mask, named in `masked_fields` with those the caller always gets masked. So a write's answer
 * tells the caller nothing they did not send, is no reveal and needs no audit entry (nor does its replay for
 * an `Idempotency-Key`, whatever the caller may read by then); a client that wants the stored values reads
 * the record, which is audited. A DELETE sends nothing: all masked.
 */
export function writeAnswer(
  doctype: DocTypeDefinition,
  access: RecordAccess,
  stored: DocRecord,
  sent: ReadonlySet<string>,
): { data: DocRecord; masked_fields?: string[] } {
  const hasValue = (field: string) => stored[field] !== undefined && stored[field] !== null;
  const withheld = doctype.fields
    .filter((f) => isFlagged(f) && !access.masked.includes(f.name) && !sent.has(f.name))
    .filter((f) => hasValue(f.name))
    .map((f) => f.name);
  const masked = doctype.fields
    .filter((f) => access.masked.includes(f.name) || withheld.includes(f.name))
    .map((f) => f.name);
  return { data: maskRecord(stored, masked), ...(masked.length > 0 ? { masked_fields: masked } : {}) };
}
