/**
 * Field indexes: a DocType field declared `index: true` (and the title field) gets a partial expression
 * index, and the list queries the record store sends (filter, sort, count, prefix search) use it: EXPLAIN of
 * the store's own SQL shows an index scan on it, not a scan of the table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { uniqueIndexName } from '../../../backend/data/index-names';
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

  it("counts by an indexed field's string from its index (an RPC method's records.count)", async () => {
    const store = new DbRecordStore(explaining(db) as Database);
    plans.length = 0;
    expect(await store.count(Order.name, { region: 'R7' })).toBe(10);
    expect(plans).toHaveLength(1);
    expect(plans[0]).toContain('records_shop_order_region');
    expect(plans[0]).not.toMatch(/Seq Scan on records/);
  });

  it('counts the same records as JSON containment would, whatever the type of the stored value', async () => {
    const store = new DbRecordStore(db);
    await db.exec(`
      INSERT INTO records (doctype, name, data) VALUES
        ('shop.Tag', 'T-1', '{"code": "1", "label": "Red"}'),
        ('shop.Tag', 'T-2', '{"code": 1, "label": "Red"}'),
        ('shop.Tag', 'T-3', '{"code": "true", "label": "Blue"}'),
        ('shop.Tag', 'T-4', '{"code": true, "label": "Red "}'),
        ('shop.Tag', 'T-5', '{"label": "red"}'),
        ('shop.Tag', 'T-6', '{"code": {"label": "Red"}, "label": "Ré"}')
    `);
    const cases: Array<Record<string, unknown>> = [
      { label: 'Red' },
      { label: 'Ré' },
      { code: '1' },
      { code: 1 },
      { code: 'true' },
      { code: true },
      { code: '{"label": "Red"}' },
      { code: '1', label: 'Red' },
      { label: 'nothing' },
      {},
    ];
    for (const equals of cases) {
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE doctype = 'shop.Tag' AND data @> $1::jsonb",
        [JSON.stringify(equals)],
      );
      expect(await store.count('shop.Tag', equals), JSON.stringify(equals)).toBe(rows[0]!.n);
    }
    expect(await store.count('shop.Tag', { label: 'Red' })).toBe(2);
    expect(await store.count('shop.Tag', { code: '1' })).toBe(1);
  });

  it('keeps a unique field unique in the database, and falls back to a plain index over existing duplicates', async () => {
    const Part = defineDocType({
      name: 'shop.Part',
      label: 'Part',
      titleField: 'code',
      model: z.object({
        code: z.string().meta({ unique: true }),
        secret: z.string().meta({ pii: true, unique: true }),
      }),
    });
    const Bin = defineDocType({
      name: 'shop.Bin',
      label: 'Bin',
      titleField: 'code',
      model: z.object({ code: z.string().meta({ unique: true }) }),
    });
    // An older database: Bin's records already share a code, under the plain index of an earlier start.
    await db.exec(`
      INSERT INTO records (doctype, name, data) VALUES
        ('shop.Bin', 'BIN-1', '{"code":"B"}'), ('shop.Bin', 'BIN-2', '{"code":"B"}');
      CREATE INDEX records_shop_bin_code ON records ((data->>'code')) WHERE doctype = 'shop.Bin';
    `);
    const log: string[] = [];
    await ensureRecordIndexes(db, [Part, Bin], (line) => log.push(line));
    const indexes = async (pattern: string) =>
      (
        await db.query<{ indexname: string; indexdef: string }>(
          'SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1 AND indexname LIKE $2 ORDER BY indexname',
          ['records', pattern],
        )
      ).rows;
    // Part: the plain field is unique in the database; the flagged one is a ciphertext, left to the check.
    const part = await indexes('records_shop_part_%');
    expect(part.map((r) => r.indexname)).toEqual([
      'records_shop_part_code_search',
      uniqueIndexName('shop.Part', 'code'),
      'records_shop_part_secret',
      'records_shop_part_secret_search',
    ]);
    expect(part.find((r) => r.indexname === uniqueIndexName('shop.Part', 'code'))!.indexdef).toMatch(
      /^CREATE UNIQUE INDEX/,
    );
    await db.query(`INSERT INTO records (doctype, name, data) VALUES ('shop.Part', 'P-1', '{"code":"X"}')`);
    await expect(
      db.query(`INSERT INTO records (doctype, name, data) VALUES ('shop.Part', 'P-2', '{"code":"X"}')`),
    ).rejects.toMatchObject({ code: '23505', constraint: uniqueIndexName('shop.Part', 'code') });
    // Bin: its duplicates keep the plain index, and the log says which index was not made, not the value.
    expect((await indexes('records_shop_bin_%')).map((r) => r.indexname)).toEqual([
      'records_shop_bin_code',
      'records_shop_bin_code_search',
    ]);
    expect(log).toHaveLength(1);
    expect(log[0]).toContain('index of shop.Bin not created');
    expect(log[0]).not.toContain('"B"');
  });
});
