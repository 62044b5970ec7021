import { createHash, createHmac } from 'node:crypto';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { Database } from '../db/database';
import { doctypeLiteral, fieldExpression } from '../db/record-indexes';

/** Suffix of the key under which a flagged field's blind index is stored beside its ciphertext. */
export const BLIND_INDEX_SUFFIX = '__bidx';

/** The stored key holding the blind index of `field` (`email` -> `email__bidx`). */
export function blindIndexKey(field: string): string {
  return `${field}${BLIND_INDEX_SUFFIX}`;
}

/**
 * The form a value is indexed under: its JSON text for a non-string, else Unicode NFC, trimmed and
 * lower-cased, so `Ada@Example.com ` and `ada@example.com` are equal for a filter (e-mail addresses and
 * phone numbers are compared that way by people too).
 */
function normalise(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  return value.normalize('NFC').trim().toLowerCase();
}

/**
 * A keyed blind index (HMAC-SHA256 of the normalised value, hex) that lets the database answer equality
 * without holding the value. The key is separate from the data keys and bound to the field, so equal values
 * in two fields do not index equal. What it leaks is written in docs/security.md#what-the-blind-index-leaks.
 */
export class BlindIndex {
  constructor(private readonly key: Buffer) {}

  /** The index of `value` in `doctype`'s `field`. */
  of(doctype: string, field: string, value: unknown): string {
    return createHmac('sha256', this.key)
      .update(JSON.stringify([doctype, field, normalise(value)]))
      .digest('hex');
  }
}

/**
 * Creates, for every flagged field of `doctypes`, a partial expression index on its blind index, so an
 * equality filter on a flagged field is an index lookup (docs/performance.md#indexes), the same kind of
 * index a plain field gets. Idempotent: run at every start; a failure is reported, not fatal.
 */
export async function ensureBlindIndexes(
  db: Pick<Database, 'query'>,
  doctypes: readonly DocTypeDefinition[],
  log: (line: string) => void,
): Promise<void> {
  for (const doctype of doctypes) {
    for (const field of doctype.fields) {
      if (!field.pii && !field.encrypted) continue;
      const key = blindIndexKey(field.name);
      const name = `records_bidx_${createHash('sha256').update(`${doctype.name}.${key}`).digest('hex').slice(0, 24)}`;
      const sql = `CREATE INDEX IF NOT EXISTS ${name} ON records (${fieldExpression(doctype, key)}) WHERE doctype = ${doctypeLiteral(doctype.name)}`;
      try {
        await db.query(sql);
      } catch (err) {
        log(`blind index of ${doctype.name}.${field.name} not created: ${(err as Error).message}`);
      }
    }
  }
}
