import type { Database } from '../db/database';

/**
 * Counts the records of a DocType whose fields equal the given values (JSON containment, `data @> $2`,
 * so field names are never part of the SQL text).
 */
export async function countRecords(
  db: Pick<Database, 'query'>,
  doctype: string,
  equals: Record<string, unknown> = {},
): Promise<number> {
  const { rows } = await db.query<{ count: string | number }>(
    'SELECT count(*) AS count FROM records WHERE doctype = $1 AND data @> $2::jsonb',
    [doctype, JSON.stringify(equals)],
  );
  return Number(rows[0]?.count ?? 0);
}
