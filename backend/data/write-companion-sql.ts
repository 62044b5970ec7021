/**
 * The one-statement writes of the record store (record-store.ts, `insertAlongside`, `updateAlongside` and
 * `deleteAlongside`): the record's write as the `WITH` named `rec`, each companion row's statement as one
 * more data-modifying `WITH` conditioned on `rec` having returned the record, and the record selected from
 * `rec`, with what the companions that asked for it returned.
 */
import { COLUMNS } from './record-sql';
import type { WriteCompanion } from './records';

/** A write and its companions as one statement: the SQL, and what tells the companions of its row. */
export interface AlongsideStatement {
  readonly sql: string;
  /** Gives each companion with `returned` the values its statement returned, from the statement's row. */
  tell(row: Record<string, unknown>): void;
}

/** A record a statement writes, and the companion rows that go with it. */
interface Written {
  readonly name: string;
  readonly alongside: readonly WriteCompanion[];
}

/**
 * `write` (the `WITH` whose `rec` returns the written records) followed by each record's companions as
 * `, companion<i> AS (...)`, conditioned on `rec` having returned rows, and the final SELECT of `rec` with a
 * column for each companion that wants its statement's returned values back (`ARRAY(...)`, the same on
 * every row: one row per record, however many rows a companion touched). The companions' parameters are
 * appended to `params`; `tell(index, row)` gives record `index`'s companions their values from any row.
 */
function withCompanions(
  write: string,
  records: readonly Written[],
  params: unknown[],
): { sql: string; tell(index: number, row: Record<string, unknown>): void } {
  let sql = write;
  let returned = '';
  const columns: string[][] = [];
  let c = 0;
  for (const { name, alongside } of records) {
    const own: string[] = [];
    for (const companion of alongside) {
      const insert = companion.insert(name);
      sql += `,\n companion${c} AS (${insert.sql(params.length + 1, 'EXISTS (SELECT 1 FROM rec)')})`;
      params.push(...insert.params);
      if (companion.returned) returned += `, ARRAY(SELECT * FROM companion${c}) AS companion${c}`;
      own.push(`companion${c}`);
      c++;
    }
    columns.push(own);
  }
  return {
    sql: `${sql}\n SELECT rec.*${returned} FROM rec`,
    tell(index, row) {
      records[index]!.alongside.forEach((companion, j) => {
        companion.returned?.((row[columns[index]![j]!] as unknown[] | undefined) ?? []);
      });
    },
  };
}

/** The write of one record `name` with its companions (see {@link withCompanions}). */
function companionsOf(
  alongside: readonly WriteCompanion[],
  name: string,
  params: unknown[],
  write: string,
): AlongsideStatement {
  const statement = withCompanions(write, [{ name, alongside }], params);
  return { sql: statement.sql, tell: (row) => statement.tell(0, row) };
}

/** One new record of a guessed group ({@link insertGroupSql}): its row and what goes along with it. */
export interface GroupedInsert {
  readonly doctype: string;
  /** The name guessed for it: the group's counters are consecutive, in the order of the writes. */
  readonly name: string;
  /** Its data, as JSON. */
  readonly data: string;
  readonly by: string | null;
  readonly alongside: readonly WriteCompanion[];
}

/** A group's statement, its parameters, and what tells each write's companions of the stored rows. */
export interface GroupStatement {
  readonly sql: string;
  readonly params: unknown[];
  /** Gives the companions of write `index` that asked for it the values their statements returned. */
  tell(index: number, row: Record<string, unknown>): void;
}

/**
 * The guessed insert of consecutive new records of one naming prefix, each with its companions, as ONE
 * statement: the counter moves from `first - 1` to the last write's counter, and the records and every
 * companion row are stored, only if the counter is still at `first - 1`; otherwise nothing is. A statement
 * is atomic, so a companion the database refuses stores none of the group either. One row is returned per
 * stored record (in no promised order: match them by name).
 */
export function insertGroupSql(
  prefix: string,
  first: number,
  writes: readonly GroupedInsert[],
): GroupStatement {
  const params: unknown[] = [first + writes.length - 1, prefix, first];
  const values = writes.map((w) => {
    params.push(w.doctype, w.name, w.data, w.by);
    const n = params.length;
    return `($${n - 3}::text, $${n - 2}::text, $${n - 1}::jsonb, $${n}::text)`;
  });
  const statement = withCompanions(
    `WITH next AS (
       UPDATE naming_series SET current = $1::bigint WHERE prefix = $2 AND current = $3::bigint - 1
       RETURNING current
     ),
     rec AS (
       INSERT INTO records (doctype, name, data, modified_by)
       SELECT v.doctype, v.name, v.data, v.modified_by
         FROM next, (VALUES ${values.join(', ')}) AS v (doctype, name, data, modified_by)
       RETURNING ${COLUMNS}
     )`,
    writes,
    params,
  );
  return { ...statement, params };
}

/**
 * The new `data` of an UPDATE of records: `$3` (the fields written); with fields to keep (`$5`, a text
 * array), their stored values (and whatever else the record holds under those keys) carried over as they
 * are, in the database, so a value nobody opened is written back unopened.
 */
export function updatedDataSql(keep: readonly string[]): string {
  return keep.length === 0
    ? '$3::jsonb'
    : `$3::jsonb || COALESCE((SELECT jsonb_object_agg(k, records.data -> k) FROM unnest($5::text[]) AS k WHERE records.data ? k), '{}'::jsonb)`;
}

/**
 * The update of record `name` with its companions. `params` holds, in order, the DocType, the name, the
 * data (JSON), the author and, when fields are kept, their names; the companions' are added.
 */
export function updateAlongsideSql(
  alongside: readonly WriteCompanion[],
  name: string,
  params: unknown[],
  keep: readonly string[] = [],
): AlongsideStatement {
  return companionsOf(
    alongside,
    name,
    params,
    `WITH rec AS (
       UPDATE records SET data = ${updatedDataSql(keep)}, modified = now(), modified_by = $4::text
        WHERE doctype = $1 AND name = $2 RETURNING ${COLUMNS}
     )`,
  );
}

/**
 * The delete of record `name` with its companions. `params` holds, in order, the DocType and the name; the
 * companions' are added.
 */
export function deleteAlongsideSql(
  alongside: readonly WriteCompanion[],
  name: string,
  params: unknown[],
): AlongsideStatement {
  return companionsOf(
    alongside,
    name,
    params,
    `WITH rec AS (DELETE FROM records WHERE doctype = $1 AND name = $2 RETURNING ${COLUMNS})`,
  );
}
