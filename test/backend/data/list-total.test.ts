/**
 * A list's total on a DocType larger than the exact-count bound: without filters it is counted up to
 * EXACT_TOTAL_LIMIT and then answered as that bound with `total_is_lower_bound: true`; the last page and
 * filtered lists stay exact. The database store (through the real API) and the memory store agree. Keyset
 * paging (`cursor`, a page's `next_cursor`) walks the default order to the same records as `limit_start`,
 * ties of one `modified` (to the microsecond) included, and is refused with any other order or an offset.
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
  next_cursor?: string;
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
    // Deleted through the API, as users do: the store then knows the DocType may be back under the bound.
    for (let i = EXACT_TOTAL_LIMIT + 1; i <= COUNT; i++) {
      const res = await t.request('DELETE', `/api/resource/stock.Item/ITEM-${String(i).padStart(5, '0')}`);
      expect(res.status).toBe(200);
    }
    const page = await apiList({});
    expect(page.total).toBe(EXACT_TOTAL_LIMIT);
    expect(page).not.toHaveProperty('total_is_lower_bound');
    expect(page.data).toHaveLength(20);
  });
});

/** Every name of the default list, page after page by `next_cursor`, with how many pages that took. */
async function walk(
  list: (params: Record<string, string>) => Promise<Page>,
  pageLength: number,
): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let params: Record<string, string> = { limit_page_length: String(pageLength) };
  for (let pages = 1; ; pages++) {
    const page = await list(params);
    names.push(...page.data.map((r) => r.name));
    if (!page.next_cursor) return { names, pages };
    expect(page.data).toHaveLength(pageLength);
    params = { limit_page_length: String(pageLength), cursor: page.next_cursor };
  }
}

async function apiNames(doctype: string, params: Record<string, string>): Promise<string[]> {
  const res = await t.request('GET', `/api/resource/${doctype}?${new URLSearchParams(params)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Page).data.map((r) => r.name);
}

describe('keyset paging of the default order', () => {
  it('walks every record by next_cursor, in the order limit_start pages give, in both stores', async () => {
    const byOffset = [
      ...(await apiNames('stock.Item', { limit_page_length: '500' })),
      ...(await apiNames('stock.Item', { limit_page_length: '500', limit_start: '500' })),
      ...(await apiNames('stock.Item', { limit_page_length: '500', limit_start: '1000' })),
    ];
    expect(byOffset.length).toBeGreaterThanOrEqual(EXACT_TOTAL_LIMIT);
    const api = await walk(apiList, 150);
    expect(api.names).toEqual(byOffset);
    expect(api.pages).toBe(Math.ceil((byOffset.length + 1) / 150));
    const memoryList = (params: Record<string, string>) =>
      memory.list(Item, parseListQuery(Item, params)) as Promise<Page>;
    const fromMemory = await walk(memoryList, 150);
    expect(fromMemory.names.slice(-3)).toEqual(['ITEM-00003', 'ITEM-00002', 'ITEM-00001']);
  });

  it('splits records of one modified (to the microsecond) by name, none twice or left out', async () => {
    await t.ctx.db.query(
      `INSERT INTO records (doctype, name, data, creation, modified)
       SELECT 'stock.Warehouse', 'WH-TIE-' || i, jsonb_build_object('warehouse_name', 'Tie ' || i),
              timestamptz '2030-01-01 00:00:00.123456+00', timestamptz '2030-01-01 00:00:00.123456+00'
         FROM generate_series(1, 7) AS i`,
    );
    const all = await apiNames('stock.Warehouse', { limit_page_length: '500' });
    const list = async (params: Record<string, string>) => {
      const res = await t.request('GET', `/api/resource/stock.Warehouse?${new URLSearchParams(params)}`);
      expect(res.status).toBe(200);
      return (await res.json()) as Page;
    };
    const { names } = await walk(list, 2);
    expect(names).toEqual(all);
    expect(names.filter((n) => n.startsWith('WH-TIE-'))).toEqual(
      Array.from({ length: 7 }, (_, i) => `WH-TIE-${i + 1}`),
    );
  });

  it('refuses a cursor with another order, with limit_start, or not made by a list', async () => {
    const { next_cursor: cursor } = await apiList({ limit_page_length: '5' });
    expect(cursor).toEqual(expect.any(String));
    const refused: Array<Record<string, string>> = [
      { cursor: cursor!, order_by: 'item_code asc' },
      { cursor: cursor!, limit_start: '5' },
      { cursor: 'not-a-cursor' },
      { cursor: btoa(JSON.stringify(['yesterday', 'ITEM-00001'])) },
    ];
    for (const params of refused) {
      const res = await t.request('GET', `/api/resource/stock.Item?${new URLSearchParams(params)}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_paging');
    }
    expect(() => parseListQuery(Item, { cursor: cursor!, order_by: 'modified asc' })).toThrow(
      /default order/,
    );
  });
});
