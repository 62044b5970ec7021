/**
 * The record store's statistics refresh: `ANALYZE records` on a PostgreSQL server, whose autovacuum vacuums;
 * `VACUUM (ANALYZE) records` on the embedded database, which has no autovacuum, so that the rows updated and
 * deleted are reclaimed and the pages left all-visible are marked (an index-only count then skips the table).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PlannerStatistics } from '../../../backend/data/planner-statistics';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';

const open: Database[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

/** An embedded database holding 500 records, each updated once since (500 dead row versions). */
async function churned(): Promise<Database> {
  const db = await openDatabase({ memory: true });
  open.push(db);
  await db.exec(`
    INSERT INTO records (doctype, name, data)
    SELECT 'shop.Order', 'ORDE-' || i, jsonb_build_object('title', 'Order ' || i) FROM generate_series(1, 500) AS i;
    UPDATE records SET data = data || '{"paid": true}' WHERE doctype = 'shop.Order';
  `);
  return db;
}

/** `db`'s handle that records each statement sent; `identity` keeps it `db`'s (or hides it, `asServer`). */
function recording(db: Database, sent: string[], asServer = false): Pick<Database, 'query'> {
  const handle = {
    query<T>(sql: string, params?: unknown[]) {
      sent.push(sql);
      return db.query<T>(sql, params);
    },
  };
  return asServer ? handle : Object.assign(handle, { identity: db });
}

const allVisiblePages = async (db: Database) =>
  (
    await db.query<{ pages: number }>(
      "SELECT relallvisible::int AS pages FROM pg_class WHERE oid = 'records'::regclass",
    )
  ).rows[0]!.pages;

describe('the statistics refresh of the records table', () => {
  it('vacuums the embedded database as it analyzes it, marking its pages all-visible', async () => {
    const db = await churned();
    const sent: string[] = [];
    await new PlannerStatistics(recording(db, sent)).ready();
    expect(sent).toContain('VACUUM (ANALYZE) records');
    expect(await allVisiblePages(db)).toBeGreaterThan(0);
  });

  it("only analyzes a PostgreSQL server's table, which its autovacuum vacuums", async () => {
    const db = await churned();
    const sent: string[] = [];
    await new PlannerStatistics(recording(db, sent, true)).ready();
    expect(sent).toContain('ANALYZE records');
    expect(sent).not.toContain('VACUUM (ANALYZE) records');
    expect(await allVisiblePages(db)).toBe(0);
  });

  it('vacuums again once the rows changed pass the threshold', async () => {
    const db = await churned();
    const sent: string[] = [];
    const statistics = new PlannerStatistics(recording(db, sent));
    await statistics.ready();
    sent.length = 0;
    // 50 plus 10% of 500 rows: the 101st change starts a refresh.
    for (let i = 0; i < 100; i++) statistics.changed();
    expect(sent).toEqual([]);
    statistics.changed();
    await expect.poll(() => sent).toContain('VACUUM (ANALYZE) records');
  });
});
