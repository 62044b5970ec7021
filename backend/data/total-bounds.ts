import type { Database } from '../db/database';
import { EXACT_TOTAL_LIMIT } from './list-query';

/**
 * How far an unfiltered count goes where {@link TotalBounds} are kept: twice the exact bound, so that a
 * DocType found over it answers "1,000+" without counting until about a thousand of its records are deleted.
 */
const KEPT_COUNT_LIMIT = 2 * EXACT_TOTAL_LIMIT;

/**
 * What this process knows of each DocType's number of records on an embedded database, which no other
 * process writes (docs/performance.md#lists-on-large-tables): a lower bound, from the last count less the
 * records deleted since. Creates leave it as it is (it stays a lower bound) and a delete lowers it even when
 * its transaction rolls back, so it never claims more records than there are. While it exceeds the list's
 * exact-count bound, an unfiltered list answers "1,000+" without counting again.
 */
export class TotalBounds {
  readonly #atLeast = new Map<string, number>();
  /** Records of each DocType this process deleted, ever: what a count that ran meanwhile may have missed. */
  readonly #deletes = new Map<string, number>();

  /**
   * Starts a count of `doctype`; call the result with what the count found. Records deleted while it ran are
   * taken off it, as the count may have seen them or not.
   */
  counting(doctype: string): (count: number) => void {
    const before = this.#deletes.get(doctype) ?? 0;
    return (count) => {
      this.#atLeast.set(doctype, count - ((this.#deletes.get(doctype) ?? 0) - before));
    };
  }

  /** A record of `doctype` was deleted. */
  deleted(doctype: string): void {
    this.#deletes.set(doctype, (this.#deletes.get(doctype) ?? 0) + 1);
    const count = this.#atLeast.get(doctype);
    if (count !== undefined) this.#atLeast.set(doctype, count - 1);
  }

  /** Whether `doctype` is known to hold more than `bound` records. */
  exceeds(doctype: string, bound: number): boolean {
    return (this.#atLeast.get(doctype) ?? 0) > bound;
  }
}

/**
 * The total of an unfiltered list of `doctype`: exact up to {@link EXACT_TOTAL_LIMIT}, undefined past it.
 * Counted by walking the primary key (`doctype, name`) under a `LIMIT` instead of reading every record of
 * the DocType, and not counted at all while `bounds` know the DocType is past the limit. `setBound`: this
 * count may set the bound (not one inside a transaction, which sees its own uncommitted creates).
 */
export async function unfilteredTotal(
  db: Pick<Database, 'query'>,
  doctype: string,
  bounds: TotalBounds | undefined,
  setBound: boolean,
): Promise<number | undefined> {
  if (bounds?.exceeds(doctype, EXACT_TOTAL_LIMIT)) return undefined;
  // Where the bound is kept, the count goes further once, so that deletes do not bring it back at once.
  const found = setBound ? bounds?.counting(doctype) : undefined;
  const limit = found ? KEPT_COUNT_LIMIT : EXACT_TOTAL_LIMIT;
  const { rows } = await db.query<{ count: string | number }>(
    'SELECT count(*) AS count FROM (SELECT 1 FROM records WHERE doctype = $1 ORDER BY name LIMIT $2) AS matching',
    [doctype, limit + 1],
  );
  const total = Number(rows[0]?.count ?? 0);
  found?.(total);
  return total > EXACT_TOTAL_LIMIT ? undefined : total;
}
