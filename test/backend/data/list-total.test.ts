/**
 * A list's total on a DocType larger than the exact-count bound: without filters it is counted up to
 * EXACT_TOTAL_LIMIT and then answered as that bound with `total_is_lower_bound: true`; the last page and
 * filtered lists stay exact. The database store (through the real API) and the memory store agree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Item } from '../../../backend/apps/stock/doctypes';
import { EXACT_TOTAL_LIMIT, parseListQuery } from '../../../backend/data/list-query';
import { MemoryRecordStore } from '../../../backend/data/memory-record-store';
import { createTestApp, type TestApp } from '../../helpers/test-app';

const COUNT = EXACT_TOTAL_LIMIT + 5;

interface Page {
  data: Array<{ name: string; item_code?: string }>;
  total: number;
  total_is_lower_bound?: boolean;
}

let t: TestApp;
const memory = new MemoryRecordStore();

beforeAll(async () => {
  t = await createTestApp();
  // Item i modified i minutes after the epoch of the run: the newest is ITEM-<COUNT>.
  await t.ctx.db.query(
    `INSERT INTO records (doctype, name, data, creation, modified)
     SELECT 'stock.Item', 'ITEM-' || lpad(i::text, 5, '0'),
            jsonb_build_object('item_code', 'C-' || i, 'item_name', 'Item ' || i, 'quantity', i % 7),
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
       FROM generate_series(1, $1::int) AS i`,
    [COUNT],
  );
  for (let i = 1; i <= COUNT; i++) {
    memory.insertAt(
      Item,
      { item_code: `C-${i}`, item_name: `Item ${i}`, quantity: i % 7 },
      new Date(Date.UTC(2026, 0, 1) + i * 60_000),
    );
  }
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function apiList(params: Record<string, string>): Promise<Page> {
  const res = await t.request('GET', `/api/resource/stock.Item?${new URLSearchParams(params)}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

const CASES: Array<[string, Record<string, string>, Omit<Page, 'data'>, string]> = [
  [
    'the default list past the bound',
    {},
    { total: EXACT_TOTAL_LIMIT, total_is_lower_bound: true },
    `ITEM-${String(COUNT).padStart(5, '0')}`,
  ],
  ['its last page', { limit_start: String(COUNT - 3) }, { total: COUNT }, 'ITEM-00003'],
  [
    'a page past its end',
    { limit_start: String(COUNT + 20) },
    { total: EXACT_TOTAL_LIMIT, total_is_lower_bound: true },
    '',
  ],
  [
    'a filtered list',
    { filters: '[["quantity","=",3]]' },
    { total: Math.floor((COUNT - 3) / 7) + 1 },
    'ITEM-01004',
  ],
];

describe('list totals beyond the exact-count bound', () => {
  for (const [what, params, expected, first] of CASES) {
    it(`answers ${JSON.stringify(expected)} for ${what}, in both stores`, async () => {
      const page = await apiList(params);
      const fromMemory = await memory.list(Item, parseListQuery(Item, params));
      for (const answer of [page, fromMemory]) {
        expect({ total: answer.total, total_is_lower_bound: answer.total_is_lower_bound }).toEqual({
          total_is_lower_bound: undefined,
          ...expected,
        });
        expect(answer.data[0]?.name ?? '').toBe(first);
      }
      expect(page.data.map((r) => r.name)).toEqual(fromMemory.data.map((r) => r.name));
    });
  }

  it('answers an exact total without the flag at or under the bound', async () => {
    await t.ctx.db.query("DELETE FROM records WHERE doctype = 'stock.Item' AND name > $1", [
      `ITEM-${String(EXACT_TOTAL_LIMIT).padStart(5, '0')}`,
    ]);
    const page = await apiList({});
    expect(page.total).toBe(EXACT_TOTAL_LIMIT);
    expect(page).not.toHaveProperty('total_is_lower_bound');
    expect(page.data).toHaveLength(20);
  });
});
