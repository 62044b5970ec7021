/**
 * A record whose stored data depends on its name (personal data at rest binds each value to its record) is
 * inserted under the name it was built for: the database store guesses the next name from its last use of
 * the prefix and takes it in the insert's own statement, and falls back to taking the name first when
 * another writer moved the counter. Names stay consecutive, without duplicates or gaps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Customer } from '../../../backend/apps/crm/doctypes';
import { DbRecordStore } from '../../../backend/data/record-store';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';

let db: Database;
let store: DbRecordStore;

/** Inserts through `insertNamed`, recording every name `data` was asked for. */
async function insertNamed(into: DbRecordStore, label: string) {
  const asked: string[] = [];
  const record = await into.insertNamed(
    Customer,
    (name) => {
      asked.push(name);
      return { customer_name: label, built_for: name };
    },
    'Administrator',
  );
  return { record, asked };
}

/** Every statement sent, so a test can count them. */
function counting(inner: Database): { db: Database; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    db: {
      ...inner,
      query: (sql, params) => {
        statements.push(sql);
        return inner.query(sql, params);
      },
    },
  };
}

beforeAll(async () => {
  db = await openDatabase({ memory: true });
  store = new DbRecordStore(db);
}, 60_000);
afterAll(() => db.close());

describe('insertNamed', () => {
  it('stores each record under the name its data was built for, consecutively', async () => {
    const first = await insertNamed(store, 'First');
    const second = await insertNamed(store, 'Second');
    const third = await insertNamed(store, 'Third');
    const names = [first, second, third].map((r) => r.record.name);
    expect(names).toEqual(['CUST-00001', 'CUST-00002', 'CUST-00003']);
    for (const { record } of [first, second, third]) expect(record.built_for).toBe(record.name);
    expect(second.asked).toEqual(['CUST-00002']);
  });

  it('takes one statement per record once the prefix was used', async () => {
    const counted = counting(db);
    const own = new DbRecordStore(counted.db);
    await insertNamed(own, 'Warm-up');
    counted.statements.length = 0;
    const { record } = await insertNamed(own, 'One statement');
    expect(counted.statements).toHaveLength(1);
    expect(await own.get(Customer, record.name)).toMatchObject({ built_for: record.name });
  });

  it('falls back to the next free name when another writer took the guessed one', async () => {
    const before = await insertNamed(store, 'Before');
    const elsewhere = new DbRecordStore(db);
    const theirs = await elsewhere.insert(Customer, { customer_name: 'Theirs' });
    const ours = await insertNamed(store, 'After');
    const number = (name: string) => Number(name.slice('CUST-'.length));
    expect(number(theirs.name)).toBe(number(before.record.name) + 1);
    expect(number(ours.record.name)).toBe(number(theirs.name) + 1);
    // Built first for the name the other writer took, then for the one it got.
    expect(ours.asked).toEqual([theirs.name, ours.record.name]);
    expect(ours.record.built_for).toBe(ours.record.name);
    expect(await store.get(Customer, theirs.name)).toMatchObject({ customer_name: 'Theirs' });
  });

  it('guesses again after a rolled-back insert without a duplicate or a gap', async () => {
    const kept = await insertNamed(store, 'Kept');
    await expect(
      store.atomically(async (tx) => {
        await (tx as DbRecordStore).insertNamed(Customer, () => ({ customer_name: 'Rolled back' }));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const next = await insertNamed(store, 'Next');
    const number = (name: string) => Number(name.slice('CUST-'.length));
    expect(number(next.record.name)).toBe(number(kept.record.name) + 1);
    expect(next.record.built_for).toBe(next.record.name);
  });
});
