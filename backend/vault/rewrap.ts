import type { DocTypeDefinition } from '../../src/contract/doctype';
import { flaggedFieldNames } from '../../src/protocol';
import type { Database } from '../db/database';
import { blindIndexKey } from './blind-index';
import { isCiphertext, kekIdOf } from './field-cipher';
import type { VaultKeys } from './vault-keys';

/** Progress of {@link rewrapRecords}, after each batch. */
export interface RewrapProgress {
  doctype: string;
  /** Records of the DocType looked at so far. */
  checked: number;
  /** Of those, records whose values were written again. */
  rewrapped: number;
}

/** Options of {@link rewrapRecords}. */
export interface RewrapOptions {
  /** Records read and written per batch (one transaction each); default 100. */
  batch?: number;
  onProgress?(progress: RewrapProgress): void;
}

interface Row {
  name: string;
  data: Record<string, unknown>;
}

/**
 * Re-encrypts, in batches, every flagged value not wrapped by the current key-encryption key: values of a
 * previous key (after a rotation) and values stored in clear before encryption at rest existed (which also
 * get their blind index). A batch is one transaction, and a row is written only if it is still what was
 * read (a record changed meanwhile was already written under the current key), so a server can keep
 * serving, and a run that is killed resumes where it stopped when run again: what it finished is current and
 * skipped. Records keep their `modified` time: nothing a user sees changed. Returns the records rewritten.
 */
export async function rewrapRecords(
  db: Pick<Database, 'query' | 'transaction'>,
  keys: VaultKeys,
  doctypes: readonly DocTypeDefinition[],
  options: RewrapOptions = {},
): Promise<number> {
  const batch = options.batch ?? 100;
  let total = 0;
  for (const doctype of doctypes) {
    const flagged = flaggedFieldNames(doctype);
    if (flagged.length === 0) continue;
    const progress: RewrapProgress = { doctype: doctype.name, checked: 0, rewrapped: 0 };
    let after = '';
    for (;;) {
      const { rows } = await db.query<Row>(
        'SELECT name, data FROM records WHERE doctype = $1 AND name > $2 ORDER BY name LIMIT $3',
        [doctype.name, after, batch],
      );
      if (rows.length === 0) break;
      await db.transaction(async (tx) => {
        for (const row of rows) {
          const data = { ...row.data };
          let changed = false;
          for (const field of flagged) {
            const value = data[field];
            if (value === undefined || value === null) continue;
            if (isCiphertext(value) && kekIdOf(value) === keys.cipher.kekId) continue;
            const binding = { doctype: doctype.name, record: row.name, field };
            const plain = isCiphertext(value) ? keys.cipher.decrypt(value, binding) : value;
            data[field] = keys.cipher.encrypt(plain, binding);
            data[blindIndexKey(field)] = keys.blindIndex.of(doctype.name, field, plain);
            changed = true;
          }
          if (!changed) continue;
          const { rows: written } = await tx.query<{ name: string }>(
            'UPDATE records SET data = $3::jsonb WHERE doctype = $1 AND name = $2 AND data = $4::jsonb RETURNING name',
            [doctype.name, row.name, JSON.stringify(data), JSON.stringify(row.data)],
          );
          if (written.length > 0) progress.rewrapped++;
        }
      });
      after = rows[rows.length - 1]!.name;
      progress.checked += rows.length;
      options.onProgress?.({ ...progress });
    }
    total += progress.rewrapped;
  }
  return total;
}
