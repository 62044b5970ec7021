/**
 * The audit entry of a reveal rides on the statement that reads the record: inserted if and only if the
 * record exists, chained after the head this process keeps, re-chained when another process took its
 * `seq`, and never run by a store over another database (the caller then appends it itself).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Customer } from '../../../backend/apps/crm/doctypes';
import { AuditLog } from '../../../backend/audit/audit-log';
import { type AuditFacts, verifyChain } from '../../../backend/audit/chain';
import { DbRecordStore } from '../../../backend/data/record-store';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';

let db: Database;
let other: Database;
let log: AuditLog;
let store: DbRecordStore;
let ada: string;

const reveal = (record: string): AuditFacts => ({
  at: new Date().toISOString(),
  user: 'Administrator',
  via: 'api_key',
  doctype: Customer.name,
  record,
  fields: ['email'],
  route: 'get',
  client_address: null,
});

/** Reads `name` with its reveal alongside; says whether the log was told the entry is stored. */
async function readRevealed(from: DbRecordStore, name: string) {
  const appended = vi.fn();
  const record = await from.get(Customer, name, {
    masked: [],
    alongside: log.companion([reveal(name)], appended),
  });
  return { record, appended: appended.mock.calls.length > 0 };
}

beforeAll(async () => {
  [db, other] = await Promise.all([openDatabase({ memory: true }), openDatabase({ memory: true })]);
  log = new AuditLog(db);
  await log.migrate();
  store = new DbRecordStore(db);
  ada = (await store.insert(Customer, { customer_name: 'Ada' })).name;
}, 60_000);
afterAll(async () => {
  await Promise.all([db.close(), other.close()]);
});

describe('a reveal appended by the read of its record', () => {
  it('stores the entry with the record read, chained after the head', async () => {
    const [first] = await log.append([reveal(ada)]);
    const { record, appended } = await readRevealed(store, ada);
    expect(record).toMatchObject({ name: ada, customer_name: 'Ada' });
    expect(appended).toBe(true);
    const { data } = await log.list({ limit: 100 });
    expect(data.at(-1)).toMatchObject({ seq: first!.seq + 1, prev_hash: first!.hash, record: ada });
  });

  it('stores nothing for a record that does not exist, and the chain goes on from the same head', async () => {
    const before = await log.list({ limit: 100 });
    const { record, appended } = await readRevealed(store, 'CUST-99999');
    expect(record).toBeUndefined();
    expect(appended).toBe(false);
    expect((await log.list({ limit: 100 })).total).toBe(before.total);
    await readRevealed(store, ada);
    const after = (await log.list({ limit: 100 })).data;
    expect(after.at(-1)).toMatchObject({ seq: before.total + 1, prev_hash: before.data.at(-1)!.hash });
    expect(await verifyChain(log.entries())).toMatchObject({ ok: true, entries: before.total + 1 });
  });

  it('re-chains after another process extended the log first', async () => {
    const elsewhere = new AuditLog(db);
    const [theirs] = await elsewhere.append([reveal(ada)]);
    const { appended } = await readRevealed(store, ada);
    expect(appended).toBe(true);
    const last = (await log.list({ limit: 100, newestFirst: true })).data[0]!;
    expect(last).toMatchObject({ seq: theirs!.seq + 1, prev_hash: theirs!.hash });
    expect(await verifyChain(log.entries())).toMatchObject({ ok: true });
  });

  it('is left to its owner by a store over another database', async () => {
    const foreign = new DbRecordStore(other);
    const name = (await foreign.insert(Customer, { customer_name: 'Elsewhere' })).name;
    const before = (await log.list({ limit: 100 })).total;
    const { record, appended } = await readRevealed(foreign, name);
    expect(record).toMatchObject({ name, customer_name: 'Elsewhere' });
    expect(appended).toBe(false);
    expect((await log.list({ limit: 100 })).total).toBe(before);
  });

  it('leaves a chain a restarted process continues, and verification accepts', async () => {
    await readRevealed(store, ada);
    const restarted = new AuditLog(db);
    const appended = vi.fn();
    await store.get(Customer, ada, { masked: [], alongside: restarted.companion([reveal(ada)], appended) });
    expect(appended).toHaveBeenCalledTimes(1);
    await restarted.append([reveal(ada)]);
    const verdict = await verifyChain(restarted.entries());
    const { total } = await restarted.list({ limit: 1 });
    expect(verdict).toMatchObject({ ok: true, entries: total });
  });
});
