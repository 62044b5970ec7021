/**
 * Field indexes: a DocType field declared `index: true` (and the title field) gets a partial expression
 * index, and the list queries the record store sends (filter, sort, count, prefix search) use it: EXPLAIN of
 * the store's own SQL shows an index scan on it, not a scan of the table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseListQuery } from '../../../backend/data/list-query';
import { DbRecordStore } from '../../../backend/data/record-store';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { ensureRecordIndexes, indexedFields, indexStatements } from '../../../backend/db/record-indexes';
import { defineDocType } from '../../../src/contract/doctype';

const Order = defineDocType({
  name: 'shop.Order',
  label: 'Order',
  titleField: 'title',
  model: z.object({
    title: z.string(),
    region: z.string().meta({ index: true }),
    total: z.number().meta({ index: true }),
    note: z.string().optional(),
  }),
});

let db: Database;
/** The plans of the statements the store sent, in order. */
const plans: string[] = [];

/** The store's database handle, recording the EXPLAIN of each list statement before running it. */
function explaining(inner: Database): Pick<Database, 'query'> {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      if (/^SELECT .* FROM records WHERE/s.test(sql)) {
        const { rows } = await inner.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
        plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
      return inner.query<T>(sql, params);
    },
  };
}

beforeAll(async () => {
  db = await openDatabase({ memory: true });
  // 5,000 orders among 20,000 records of other DocTypes: enough rows that a scan costs more than the index.
  await db.exec(`
    INSERT INTO records (doctype, name, data)
    SELECT 'shop.Order', 'ORDE-' || i,
           jsonb_build_object('title', 'Order ' || i, 'region', 'R' || (i % 500), 'total', i, 'note', 'n')
      FROM generate_series(1, 5000) AS i;
    INSERT INTO records (doctype, name, data)
    SELECT 'shop.Other' || (i % 4), 'OTHE-' || i, jsonb_build_object('title', 'Other ' || i)
      FROM generate_series(1, 20000) AS i;
  `);
  await ensureRecordIndexes(db, [Order]);
  await db.exec('ANALYZE records');
}, 120_000);

afterAll(async () => {
  await db?.close();
});

describe('record indexes', () => {
  it('indexes the title field and the fields declared index: true, not the others', () => {
    expect(indexedFields(Order).sort()).toEqual(['region', 'title', 'total']);
    expect(indexStatements(Order).join('\n')).not.toContain("'note'");
  });

  it('creates one partial index per DocType and field', async () => {
    const { rows } = await db.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'records' AND indexname LIKE 'records_shop_order_%'",
    );
    const names = rows.map((r) => r.indexname).sort();
    expect(names).toEqual([
      'records_shop_order_region',
      'records_shop_order_region_search',
      'records_shop_order_title',
      'records_shop_order_title_search',
      'records_shop_order_total',
    ]);
    for (const row of rows) expect(row.indexdef).toContain("WHERE (doctype = 'shop.Order'::text)");
  });

  it('serves an equality filter, its count, a range, a sort and a title prefix search from the indexes', async () => {
    const store = new DbRecordStore(explaining(db) as Database);
    // Pages of 5 among about ten matches: a full page, so the store also counts (a shorter page tells the
    // total by itself and sends no count).
    const cases: Array<[Record<string, string>, string]> = [
      [{ filters: '[["region","=","R7"]]', limit_page_length: '5' }, 'records_shop_order_region'],
      [{ filters: '[["total",">",4990]]', limit_page_length: '5' }, 'records_shop_order_total'],
      [{ order_by: 'total asc', limit_page_length: '20' }, 'records_shop_order_total'],
      [
        { filters: '[["title","like","Order 123%"]]', limit_page_length: '5' },
        'records_shop_order_title_search',
      ],
    ];
    for (const [params, index] of cases) {
      plans.length = 0;
      await store.list(Order, parseListQuery(Order, params));
      // The page and the count: both plans name the index and neither scans the whole table.
      expect(plans).toHaveLength(2);
      const [page, count] = plans as [string, string];
      expect(page, JSON.stringify(params)).toContain(index);
      if (!params.order_by) expect(count, JSON.stringify(params)).toContain(index);
      for (const plan of plans) expect(plan).not.toMatch(/Seq Scan on records/);
    }
  });
});
