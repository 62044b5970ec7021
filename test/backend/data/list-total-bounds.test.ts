/**
 * The lower bound an embedded database's record store keeps of each DocType's count
 * (backend/data/total-bounds.ts): an unfiltered list past the exact-count bound answers "1,000+" without
 * counting again until deletes could have brought the DocType back under it; a count inside a transaction
 * sets no bound (a rollback would undo what it saw); a store over a database another process may write
 * (anything not embedded) counts every time. The app's own store (through the API) keeps the bound too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Item } from '../../../backend/apps/stock/doctypes';
import { EXACT_TOTAL_LIMIT, parseListQuery } from '../../../backend/data/list-query';
import { DbRecordStore } from '../../../backend/data/record-store';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { createTestApp } from '../../helpers/test-app';

let db: Database;
/** Counts sent through {@link counted} so far. */
let counts = 0;

/** `db` with its counting statements counted; `embedded` keeps what identifies it as the embedded database. */
function counted(embedded: boolean): Pick<Database, 'query' | 'transaction' | 'identity'> {
  const query: Database['query'] = (sql, params) => {
    if (/^SELECT count\(\*\)/.test(sql)) counts++;
    return db.query(sql, params);
  };
  return {
    query,
    transaction: (fn) => db.transaction((tx) => fn({ query: tx.query })),
    identity: embedded ? (db.identity ?? db) : {},
  };
}

async function insertItems(handle: Pick<Database, 'query'>, from: number, to: number): Promise<void> {
  await handle.query(
    `INSERT INTO records (doctype, name, data)
     SELECT 'stock.Item', 'ITEM-' || lpad(i::text, 5, '0'), jsonb_build_object('item_code', 'C-' || i, 'item_name', 'Item ' || i)
       FROM generate_series($1::int, $2::int) AS i`,
    [from, to],
  );
}

const firstPage = (store: DbRecordStore) => store.list(Item, parseListQuery(Item, {}));
const beyond = { total: EXACT_TOTAL_LIMIT, total_is_lower_bound: true };

beforeAll(async () => {
  db = await openDatabase({ memory: true });
}, 60_000);

afterAll(async () => {
  await db?.close();
});

describe('the kept lower bound of a DocType count', () => {
  it('answers past the bound without counting again until deletes may have brought it back', async () => {
    await insertItems(db, 1, EXACT_TOTAL_LIMIT + 50);
    const store = new DbRecordStore(counted(true));
    counts = 0;
    expect(await firstPage(store)).toMatchObject(beyond);
    expect(counts).toBe(1);
    expect(await firstPage(store)).toMatchObject(beyond);
    expect(counts).toBe(1);
    // 1,050 less 40 deleted: still more than 1,000, known without counting.
    for (let i = 1; i <= 40; i++) await store.delete(Item, `ITEM-${String(i).padStart(5, '0')}`);
    expect(await firstPage(store)).toMatchObject(beyond);
    expect(counts).toBe(1);
    // 20 more: the bound (990) no longer says, so the list counts, and exactly.
    for (let i = 41; i <= 60; i++) await store.delete(Item, `ITEM-${String(i).padStart(5, '0')}`);
    expect(await firstPage(store)).toMatchObject({ total: EXACT_TOTAL_LIMIT - 10 });
    expect((await firstPage(store)).total_is_lower_bound).toBeUndefined();
    expect(counts).toBe(3);
    await db.exec("DELETE FROM records WHERE doctype = 'stock.Item'");
  });

  it('takes no bound from a count inside a transaction, which a rollback undoes', async () => {
    await insertItems(db, 1, EXACT_TOTAL_LIMIT - 1);
    const store = new DbRecordStore(counted(true));
    await expect(
      store.atomically(async (inside, tx) => {
        await insertItems(tx!, EXACT_TOTAL_LIMIT, EXACT_TOTAL_LIMIT + 1);
        expect(await inside.list(Item, parseListQuery(Item, {}))).toMatchObject(beyond);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    counts = 0;
    expect(await firstPage(store)).toMatchObject({ total: EXACT_TOTAL_LIMIT - 1 });
    expect(counts).toBe(1);
    await db.exec("DELETE FROM records WHERE doctype = 'stock.Item'");
  });

  it("is kept by the app's store: a list through the API counts once past the bound", async () => {
    const own = await openDatabase({ memory: true });
    let sent = 0;
    const database: Database = {
      ...own,
      identity: own.identity ?? own,
      query: (sql, params) => {
        if (/^SELECT count\(\*\)/.test(sql)) sent++;
        return own.query(sql, params);
      },
    };
    const t = await createTestApp({ database });
    try {
      await insertItems(own, 1, EXACT_TOTAL_LIMIT + 5);
      for (let i = 0; i < 3; i++) {
        const res = await t.request('GET', '/api/resource/stock.Item');
        expect(await res.json()).toMatchObject(beyond);
      }
      expect(sent).toBe(1);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('counts every time over a database that is not embedded', async () => {
    await insertItems(db, 1, EXACT_TOTAL_LIMIT + 5);
    const store = new DbRecordStore(counted(false));
    counts = 0;
    expect(await firstPage(store)).toMatchObject(beyond);
    expect(await firstPage(store)).toMatchObject(beyond);
    expect(counts).toBe(2);
    await db.exec("DELETE FROM records WHERE doctype = 'stock.Item'");
  });
});
