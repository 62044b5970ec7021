import type { Database } from '../db/database';
import { nameLiteral } from '../db/record-indexes';
import { SAFE_NAME } from './index-names';

/**
 * True when `value` is a string that no other JSON value reads as: `data->>'f'` gives a number, boolean,
 * null, object or array as its JSON text, which always parses as JSON, so a string that does not parse can
 * only equal the text of a string.
 */
function onlyAStringReadsAs(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    JSON.parse(value);
    return false;
  } catch {
    return true;
  }
}

/**
 * Counts the records of a DocType whose fields equal the given values. A string that only a string can
 * equal ({@link onlyAStringReadsAs}: `Active`, not `1` or `true`) is compared as the field's text,
 * `(data->>'field') = $n`, the very expression a field index is built on (backend/db/record-indexes.ts),
 * so a count by an indexed field reads its index instead of every record of the DocType; for such a string
 * that comparison and JSON containment match the same records. Any other value is compared by containment
 * (`data @> $n`), which no field name enters the SQL text through.
 */
export async function countRecords(
  db: Pick<Database, 'query'>,
  doctype: string,
  equals: Record<string, unknown> = {},
): Promise<number> {
  const params: unknown[] = [doctype];
  const clauses = ['doctype = $1'];
  const contained: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(equals)) {
    if (SAFE_NAME.test(field) && onlyAStringReadsAs(value)) {
      params.push(value);
      clauses.push(`(data->>${nameLiteral(field)}) = $${params.length}`);
    } else contained[field] = value;
  }
  if (Object.keys(contained).length > 0) {
    params.push(JSON.stringify(contained));
    clauses.push(`data @> $${params.length}::jsonb`);
  }
  const { rows } = await db.query<{ count: string | number }>(
    `SELECT count(*) AS count FROM records WHERE ${clauses.join(' AND ')}`,
    params,
  );
  return Number(rows[0]?.count ?? 0);
}
