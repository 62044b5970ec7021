/**
 * The in-memory record store gives list queries the meaning the database store gives them in SQL: the same
 * records, stored in both, answer the same queries with the same pages and totals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Customer } from '../../../backend/apps/crm/doctypes';
import { Item } from '../../../backend/apps/stock/doctypes';
import { parseListQuery } from '../../../backend/data/list-query';
import { MemoryRecordStore } from '../../../backend/data/memory-record-store';
import { DbRecordStore } from '../../../backend/data/record-store';
import type { RecordStore } from '../../../backend/data/records';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';

const ITEMS: Array<Record<string, unknown>> = [
  { item_code: 'A-1', item_name: 'Widget', quantity: 10, price: 2.5 },
  { item_code: 'A-2', item_name: 'Small widget', quantity: 3, price: 1 },
  { item_code: 'B-1', item_name: 'Gadget', price: 20 },
  { item_code: 'B-2', item_name: 'gadget XL', quantity: 10, price: 30 },
  { item_code: 'C_1', item_name: 'Thing 100%', quantity: 0 },
];

const CUSTOMERS: Array<Record<string, unknown>> = [
  { customer_name: 'Acme', status: 'Active' },
  { customer_name: 'Beta', status: 'Prospect' },
  { customer_name: 'Gamma', status: 'Active' },
];

/** List parameters as a client sends them (validated by the same `parseListQuery` for both stores). */
// Not the default `modified desc`: each store stamps records with its own clock, at different resolutions.
const ITEM_QUERIES: Array<Record<string, string>> = [
  { order_by: 'item_code asc' },
  { order_by: 'quantity desc' },
  { order_by: 'quantity asc, item_code desc' },
  { order_by: 'price desc', limit_start: '1', limit_page_length: '2' },
  { filters: '[["quantity",">",3]]', order_by: 'item_code asc' },
  { filters: '[["quantity","<=",3]]', order_by: 'item_code asc' },
  { filters: '[["quantity","!=",10]]', order_by: 'item_code asc' },
  { filters: '[["quantity","=",null]]' },
  { filters: '[["quantity","!=",null]]', order_by: 'item_code asc' },
  { filters: '[["item_name","like","%widget%"]]', order_by: 'item_code asc' },
  { filters: '[["item_code","like","_-1"]]', order_by: 'item_code asc' },
  { filters: '[["item_name","like","%100\\\\%"]]' },
  { filters: '[["item_code","in",["A-1","B-2","Z"]]]', order_by: 'item_code asc' },
  { filters: '[["item_code","in",[]]]' },
  { filters: '{"price":"20"}' },
  { filters: '[["quantity",">","2"],["price","<",25]]', order_by: 'item_code asc' },
  { fields: '["item_code","quantity"]', order_by: 'item_code asc' },
  { order_by: 'name desc', limit_page_length: '2' },
];

function comparable(page: { data: Array<Record<string, unknown>>; total: number }) {
  // Timestamps differ between the two stores (each stamps its own clock); names and values must not.
  return {
    total: page.total,
    data: page.data.map(({ creation: _c, modified: _m, ...rest }) => rest),
  };
}

let db: Database;
let stores: { db: RecordStore; memory: RecordStore };

beforeAll(async () => {
  db = await openDatabase({ memory: true });
  stores = { db: new DbRecordStore(db), memory: new MemoryRecordStore() };
  for (const store of Object.values(stores)) {
    for (const item of ITEMS) await store.insert(Item, item);
    for (const customer of CUSTOMERS) await store.insert(Customer, customer);
  }
}, 60_000);

afterAll(async () => {
  await db?.close();
});

describe('MemoryRecordStore', () => {
  it('answers list queries as the database store does', async () => {
    for (const params of ITEM_QUERIES) {
      const query = parseListQuery(Item, params);
      const expected = comparable(await stores.db.list(Item, query));
      expect({ params, ...comparable(await stores.memory.list(Item, query)) }).toEqual({
        params,
        ...expected,
      });
    }
  });

  it('names, reads, updates, deletes, counts and sums as the database store does', async () => {
    for (const store of Object.values(stores)) {
      expect((await store.get(Item, 'ITEM-00002'))?.item_name).toBe('Small widget');
      expect(await store.get(Item, 'ITEM-09999')).toBeUndefined();
      expect(
        (await store.update(Item, 'ITEM-00005', { item_code: 'C_1', item_name: 'Renamed' }))?.quantity,
      ).toBe(undefined);
      expect(await store.update(Item, 'ITEM-09999', { item_code: 'X', item_name: 'X' })).toBeUndefined();
      expect(await store.count(Customer.name)).toBe(3);
      expect(await store.count(Customer.name, { status: 'Active' })).toBe(2);
      expect(await store.sum(Item.name, ['quantity'])).toBe(23);
      expect(
        await store.sum(Item.name, ['quantity'], { whereIn: { field: 'item_code', values: ['A-1', 'A-2'] } }),
      ).toBe(13);
      expect(await store.sum(Item.name, ['quantity', 'price'])).toBe(10 * 2.5 + 3 * 1 + 10 * 30);
      expect((await store.delete(Item, 'ITEM-00005'))?.name).toBe('ITEM-00005');
      expect(await store.delete(Item, 'ITEM-00005')).toBeUndefined();
      expect((await store.insert(Item, { item_code: 'N', item_name: 'New' })).name).toBe('ITEM-00006');
    }
  });
});
