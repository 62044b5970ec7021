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

/**
 * The companions of a write for record `name`, as `, companion<i> AS (...)` to follow the `WITH` whose `rec`
 * is the written record, and the columns the final SELECT adds for those that want their statement's
 * returned values back (`ARRAY(...)`: one row per record, however many rows a companion touched); their
 * parameters are appended to `params`.
 */
function companionsOf(
  alongside: readonly WriteCompanion[],
  name: string,
  params: unknown[],
  write: string,
): AlongsideStatement {
  let sql = write;
  let returned = '';
  alongside.forEach((companion, i) => {
    const insert = companion.insert(name);
    sql += `,\n companion${i} AS (${insert.sql(params.length + 1, 'EXISTS (SELECT 1 FROM rec)')})`;
    params.push(...insert.params);
    if (companion.returned) returned += `, ARRAY(SELECT * FROM companion${i}) AS companion${i}`;
  });
  return {
    sql: `${sql}\n SELECT rec.*${returned} FROM rec`,
    tell(row) {
      alongside.forEach((companion, i) => {
        companion.returned?.((row[`companion${i}`] as unknown[] | undefined) ?? []);
      });
    },
  };
}

/**
 * The guessed insert of a new record with its companions. `params` holds, in order, the DocType, the
 * guessed name, the data (JSON), the author, the guessed counter and the prefix; the companions' are added.
 * The counter moves, and the record is stored, only if the counter is still one below the guess.
 */
export function insertAlongsideSql(
  alongside: readonly WriteCompanion[],
  name: string,
  params: unknown[],
): AlongsideStatement {
  return companionsOf(
    alongside,
    name,
    params,
    `WITH next AS (
       UPDATE naming_series SET current = $5::bigint WHERE prefix = $6 AND current = $5::bigint - 1
       RETURNING current
     ),
     rec AS (
       INSERT INTO records (doctype, name, data, modified_by)
       SELECT $1, $2, $3::jsonb, $4::text FROM next
       RETURNING ${COLUMNS}
     )`,
  );
}

/**
 * The update of record `name` with its companions. `params` holds, in order, the DocType, the name, the
 * data (JSON) and the author; the companions' are added.
 */
export function updateAlongsideSql(
  alongside: readonly WriteCompanion[],
  name: string,
  params: unknown[],
): AlongsideStatement {
  return companionsOf(
    alongside,
    name,
    params,
    `WITH rec AS (
       UPDATE records SET data = $3::jsonb, modified = now(), modified_by = $4::text
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
