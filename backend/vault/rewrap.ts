import type { DocTypeDefinition } from '../../src/contract/doctype';
import { flaggedFieldNames } from '../../src/protocol';
import type { Database } from '../db/database';
import { PlatformError } from '../http/errors';
import { blindIndexKey } from './blind-index';
import { isCiphertext, kekIdOf } from './field-cipher';
import { PREVIOUS_RECORDS_KEK_ENV, RECORDS_KEK_ENV, type VaultKeys } from './vault-keys';

/** Progress of {@link rewrapRecords}, after each batch. */
export interface RewrapProgress {
  doctype: string;
  /** Records of the DocType looked at so far. */
  checked: number;
  /** Of those, records whose values were written again. */
  rewrapped: number;
  /**
   * Whether the DocType's definition was among those given: without it only its ciphertexts are found, so a
   * flagged value it stored in clear before encryption at rest existed is left as it is.
   */
  defined: boolean;
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
 * Re-encrypts, in batches, every sealed value not wrapped by the current key-encryption key: values of a
 * previous key (after a rotation) and values stored in clear before encryption at rest existed (which also
 * get their blind index). Every DocType the records table holds is walked, not only those of `doctypes`: a
 * DocType of an app this configuration does not name (an app served with `m serve --app` and left out of
 * platform.toml, or since removed) still has its ciphertexts rewrapped, found by their format with no schema
 * needed, as their associated data is the row's DocType, name and field. Only a flagged value still in clear
 * needs its schema to be found. A batch is one transaction, and a row is written only if it is still what was
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
  const known = new Map(doctypes.map((d) => [d.name, flaggedFieldNames(d)]));
  const { rows: stored } = await db.query<{ doctype: string }>(
    'SELECT DISTINCT doctype FROM records ORDER BY doctype',
  );
  // The configured DocTypes first, in their order, then those only the table knows.
  const names = [...known.keys(), ...stored.map((r) => r.doctype).filter((name) => !known.has(name))];
  let total = 0;
  for (const doctype of names) {
    const flagged = known.get(doctype) ?? [];
    const progress: RewrapProgress = { doctype, checked: 0, rewrapped: 0, defined: known.has(doctype) };
    let after = '';
    for (;;) {
      const { rows } = await db.query<Row>(
        'SELECT name, data FROM records WHERE doctype = $1 AND name > $2 ORDER BY name LIMIT $3',
        [doctype, after, batch],
      );
      if (rows.length === 0) break;
      await db.transaction(async (tx) => {
        for (const row of rows) {
          const data = rewrapped(keys, doctype, row, flagged);
          if (data === undefined) continue;
          const { rows: written } = await tx.query<{ name: string }>(
            'UPDATE records SET data = $3::jsonb WHERE doctype = $1 AND name = $2 AND data = $4::jsonb RETURNING name',
            [doctype, row.name, JSON.stringify(data), JSON.stringify(row.data)],
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
  // Every value is under the current key now: the keys the rotation moved values off may be dropped, and
  // a start without them is no longer refused (vault-keys.ts).
  await db.query('DELETE FROM vault_rotations WHERE kek_id <> $1', [keys.cipher.kekId]);
  return total;
}

/**
 * The refusal of a value under a key-encryption key this run was not given: a configuration to correct
 * (exit 78), not a damaged value, so it names the key the value needs, and never the value.
 */
function notHeld(binding: { doctype: string; record: string; field: string }, kekId: string): PlatformError {
  return new PlatformError(
    'config_invalid',
    `The stored value of ${binding.field} in ${binding.doctype} ${binding.record} is under key-encryption key ${kekId}, which neither ${RECORDS_KEK_ENV} nor ${PREVIOUS_RECORDS_KEK_ENV} is: set the previous key to it and run m keys rewrap again. See docs/operators.md#rotating-the-key-encryption-key.`,
  );
}

/**
 * `row`'s data with every value that needs it sealed under the current key, or undefined when none does:
 * each ciphertext of another key (whatever field holds it) and each `flagged` field still in clear; a
 * `flagged` field's blind index is written again with it.
 */
function rewrapped(
  keys: VaultKeys,
  doctype: string,
  row: Row,
  flagged: readonly string[],
): Record<string, unknown> | undefined {
  const data = { ...row.data };
  let changed = false;
  const sealed = Object.keys(data).filter((field) => isCiphertext(data[field]));
  for (const field of new Set([...flagged, ...sealed])) {
    const value = data[field];
    if (value === undefined || value === null) continue;
    if (isCiphertext(value) && kekIdOf(value) === keys.cipher.kekId) continue;
    const binding = { doctype, record: row.name, field };
    if (isCiphertext(value) && !keys.cipher.holds(kekIdOf(value)!)) throw notHeld(binding, kekIdOf(value)!);
    const plain = isCiphertext(value) ? keys.cipher.decrypt(value, binding) : value;
    data[field] = keys.cipher.encrypt(plain, binding);
    // A field without its schema keeps the blind index it has: only a flagged field's is known to be one.
    if (flagged.includes(field)) data[blindIndexKey(field)] = keys.blindIndex.of(doctype, field, plain);
    changed = true;
  }
  return changed ? data : undefined;
}
