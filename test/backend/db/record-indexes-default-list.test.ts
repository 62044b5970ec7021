/**
 * The default list (no filters, `modified desc`) at 100,000 records, on PGlite and on a PostgreSQL server:
 * EXPLAIN of the statements the record store sends shows the page read from the
 * `(doctype, modified DESC, name)` index with no sort (deep into the list too; the narrower
 * `(doctype, modified DESC)` index is gone; a `cursor` page starts at its index entry), and the count walking an
 * index under a LIMIT, never a scan of the table; the answers are the newest records and the capped total.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { encodeListCursor } from '../../../backend/data/list-cursor';
import { EXACT_TOTAL_LIMIT, parseListQuery } from '../../../backend/data/list-query';
import { DbRecordStore } from '../../../backend/data/record-store';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { defineDocType } from '../../../src/contract/doctype';
import { type PostgresHandle, startPostgres } from '../../faults/helpers/postgres-server';

const RECORDS = 100_000;

const Order = defineDocType({
  name: 'shop.Order',
  label: 'Order',
  titleField: 'title',
  model: z.object({ title: z.string() }),
});

/** Runs each list statement for real after recording its EXPLAIN. */
function explaining(inner: Database, plans: string[]): Pick<Database, 'query'> {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      if (/FROM records WHERE/.test(sql)) {
        const { rows } = await inner.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
        plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
      return inner.query<T>(sql, params);
    },
  };
}

/**
 * 100,000 orders, modified one second apart (ORDE-100000 newest), among as many records of another DocType,
 * loaded behind the store's back and never analyzed: the store's first list gives the planner statistics.
 */
async function load(db: Database): Promise<void> {
  await db.exec(`
    INSERT INTO records (doctype, name, data, modified)
    SELECT 'shop.Order', 'ORDE-' || lpad(i::text, 6, '0'), jsonb_build_object('title', 'Order ' || i),
           timestamptz '2026-01-01' + i * interval '1 second'
      FROM generate_series(1, ${RECORDS}) AS i;
    INSERT INTO records (doctype, name, data)
    SELECT 'shop.Other', 'OTHE-' || i, jsonb_build_object('title', 'Other ' || i)
      FROM generate_series(1, ${RECORDS}) AS i;
  `);
}

const databases: Array<[string, () => Promise<{ db: Database; stop: () => Promise<void> }>]> = [
  [
    'PGlite',
    async () => {
      const db = await openDatabase({ memory: true });
      return { db, stop: () => db.close() };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const server: PostgresHandle = await startPostgres();
      const db = await openDatabase({ databaseUrl: server.url });
      return {
        db,
        stop: async () => {
          await db.close();
          await server.dispose();
        },
      };
    },
  ],
];

describe.each(databases)('the default list at 100,000 records on %s', (_label, open) => {
  let db: Database;
  let stop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    ({ db, stop } = await open());
    await load(db);
  }, 180_000);

  afterAll(async () => {
    await stop();
  });

  it('reads the first page from the (doctype, modified DESC, name) index and counts under a LIMIT', async () => {
    const plans: string[] = [];
    const store = new DbRecordStore(explaining(db, plans) as Database);
    const page = await store.list(Order, parseListQuery(Order, {}));
    expect(page.data.map((r) => r.name).slice(0, 3)).toEqual(['ORDE-100000', 'ORDE-099999', 'ORDE-099998']);
    expect(page.data).toHaveLength(20);
    expect(page).toMatchObject({ total: EXACT_TOTAL_LIMIT, total_is_lower_bound: true });
    expect(plans).toHaveLength(2);
    const [list, count] = plans as [string, string];
    expect(list).toMatch(/Index Scan using records_doctype_modified_name on records/);
    expect(list).not.toMatch(/Sort|Seq Scan/);
    // The count stops after the bound: a Limit over an index walk of the DocType.
    expect(count).toMatch(/Limit[\s\S]*Index (Only )?Scan using \w+ on records/);
    expect(count).not.toMatch(/Seq Scan|Sort/);
  });

  it('pages deep into the list along the same index, without sorting', async () => {
    const plans: string[] = [];
    const store = new DbRecordStore(explaining(db, plans) as Database);
    const page = await store.list(Order, parseListQuery(Order, { limit_start: '50000' }));
    expect(page.data[0]?.name).toBe('ORDE-050000');
    const plan = plans[0] ?? '';
    expect(plan).toMatch(/Index Scan using records_doctype_modified_name on records/);
    expect(plan).not.toMatch(/Seq Scan|Sort/);
  });

  it('pages by cursor from the index entry of the previous page, neither offset nor sort', async () => {
    const plans: string[] = [];
    const store = new DbRecordStore(explaining(db, plans) as Database);
    // After ORDE-050001, modified 50,001 s after the start of 2026.
    const cursor = encodeListCursor({
      modified: new Date(Date.UTC(2026, 0, 1) + 50_001_000).toISOString(),
      name: 'ORDE-050001',
    });
    const page = await store.list(Order, parseListQuery(Order, { cursor }));
    expect(page.data.map((r) => r.name).slice(0, 2)).toEqual(['ORDE-050000', 'ORDE-049999']);
    expect(page.next_cursor).toEqual(expect.any(String));
    const plan = plans[0] ?? '';
    expect(plan).toMatch(/Index Scan using records_doctype_modified_name on records/);
    expect(plan).toMatch(/Index Cond: [^\n]*modified <=/);
    expect(plan).not.toMatch(/Seq Scan|Sort/);
  });

  it('keeps one modified index: the (doctype, modified DESC) prefix of the default order is dropped', async () => {
    const { rows } = await db.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'records' AND indexdef LIKE '%modified DESC%'",
    );
    expect(rows.map((r) => r.indexname)).toEqual(['records_doctype_modified_name']);
  });
});
