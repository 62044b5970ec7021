import type { Database } from '../db/database';
import { embeddedDatabase } from '../db/embedded';

/** Rows changed, besides 10% of the table, before its statistics are refreshed (autovacuum's defaults). */
const ANALYZE_BASE_THRESHOLD = 50;
const ANALYZE_SCALE_FACTOR = 0.1;

/**
 * Keeps the planner's statistics of `records` current, as PostgreSQL's autovacuum does (PGlite runs no
 * autovacuum): `ANALYZE records` on first use when the table was never analyzed, and again once the rows
 * this store changed pass 50 plus 10% of the table. Without them the planner takes any DocType for 0.5% of
 * the table and, for a large one, sorts all of it for a count or a deep page instead of walking the index
 * (docs/performance.md#lists-on-large-tables). On the embedded database each refresh also vacuums the
 * table (`VACUUM (ANALYZE)`), which nothing else would do there: the space of updated and deleted rows is
 * reclaimed, and pages whose rows all stay visible are marked so, so that a count read from an index no
 * longer visits the table for them (docs/performance.md#vacuum-on-the-embedded-database). A PostgreSQL
 * server's autovacuum does that itself. Refreshes run in the background, one at a time; a failure only
 * leaves the old statistics.
 */
export class PlannerStatistics {
  #checked: Promise<void> | undefined;
  #running: Promise<void> | undefined;
  #rows = 0;
  #changes = 0;

  readonly #refresh: string;

  constructor(private readonly db: Pick<Database, 'query'>) {
    this.#refresh = embeddedDatabase(db) ? 'VACUUM (ANALYZE) records' : 'ANALYZE records';
  }

  /** Whether refreshes run on `handle` (the database's own handle, not a transaction's). */
  runsOn(handle: Pick<Database, 'query'>): boolean {
    return handle === this.db;
  }

  /**
   * Resolves once the table has statistics: the first call analyzes a table whose columns have none (never
   * analyzed, or analyzed while empty; building an index records the row count, not the columns').
   */
  ready(): Promise<void> {
    this.#checked ??= this.db
      .query<{ rows: number; analyzed: boolean }>(
        `SELECT reltuples::float8 AS rows,
                EXISTS (SELECT 1 FROM pg_stats WHERE tablename = 'records' AND attname = 'doctype') AS analyzed
           FROM pg_class WHERE oid = 'records'::regclass`,
      )
      .then(({ rows }) => {
        this.#rows = Math.max(0, Number(rows[0]?.rows ?? 0));
        if (rows[0]?.analyzed !== true) return this.#analyze();
      })
      .catch(() => {});
    return this.#checked;
  }

  /** Counts one changed row; starts a refresh past the threshold. */
  changed(): void {
    this.#changes++;
    if (this.#changes > ANALYZE_BASE_THRESHOLD + ANALYZE_SCALE_FACTOR * this.#rows) void this.#analyze();
  }

  #analyze(): Promise<void> {
    this.#running ??= (async () => {
      this.#changes = 0;
      try {
        await this.db.query(this.#refresh);
        const { rows } = await this.db.query<{ rows: number }>(
          "SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = 'records'::regclass",
        );
        this.#rows = Math.max(0, Number(rows[0]?.rows ?? 0));
      } catch {
        // The database closed or refused: the old statistics stay, the next threshold tries again.
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }
}
