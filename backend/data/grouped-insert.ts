/**
 * The creates of one naming prefix sent together (`DbRecordStore.insertAlongside`, grouped by
 * `NamingGuesses.together`): their names guessed from the process's last use of the prefix, consecutive in
 * arrival order, and the records and their companion rows stored by one statement (`insertGroupSql`), all or
 * none (docs/performance.md#creates-together).
 */
import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { Database } from '../db/database';
import type { NamingGuesses } from './naming-guesses';
import { type Row, seriesName, toRecord } from './record-sql';
import type { DocRecord, WriteCompanion } from './records';
import { insertGroupSql } from './write-companion-sql';

/** One create waiting for its group's statement. */
export interface NamedCreate {
  readonly doctype: DocTypeDefinition;
  readonly data: (name: string) => Record<string, unknown>;
  readonly by: string | undefined;
  readonly alongside: readonly WriteCompanion[];
}

/**
 * Sends one group of creates of `prefix` and answers the stored record of each, in the group's order, or
 * undefined for each when nothing was stored: the prefix not used yet by this process, a wrong guess, or a
 * statement that failed for a group of several (one write's failure, its companion's constraint or its data,
 * must not become the others': each is then written in a transaction of its own, where an error that is
 * still there is its own). A write sent alone is given the statement's error.
 */
export async function insertGroup(
  db: Pick<Database, 'query'>,
  series: NamingGuesses,
  prefix: string,
  group: readonly NamedCreate[],
): Promise<(DocRecord | undefined)[]> {
  const last = series.last(prefix);
  if (last === undefined) return group.map(() => undefined);
  try {
    const writes = group.map((create, i) => {
      const name = seriesName(prefix, last + 1 + i);
      const data = JSON.stringify(create.data(name));
      return { doctype: create.doctype.name, name, data, by: create.by ?? null, alongside: create.alongside };
    });
    const statement = insertGroupSql(prefix, last + 1, writes);
    const { rows } = await db.query<Row>(statement.sql, statement.params);
    if (rows.length === 0) return group.map(() => undefined);
    series.took(prefix, last + group.length);
    const byName = new Map(rows.map((row) => [row.name, row]));
    return writes.map((write, i) => {
      const row = byName.get(write.name)!;
      statement.tell(i, row as unknown as Record<string, unknown>);
      return toRecord(row);
    });
  } catch (error) {
    if (group.length === 1) throw error;
    return group.map(() => undefined);
  }
}
