/**
 * A record's history is no oracle for a writer without `read_pii`: a flagged field their write carried is
 * recorded as a hidden change whether or not it equals the stored value, so guessing a value and reading
 * the history tells them nothing. A writer who may read the field already knows it: their writes are still
 * compared, and an unchanged value is no change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let salesUser: string;
let salesManager: string;

const CUSTOMERS = '/api/resource/crm.Customer';

interface Entry {
  kind: string;
  user: string;
  changes?: Array<{ field: string; old?: unknown; new?: unknown; hidden?: true }>;
}

async function newCustomer(label: string): Promise<string> {
  const res = await t.request('POST', CUSTOMERS, {
    body: { customer_name: label, email: `${label}@example.com`, status: 'Active' },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { name: string } }).data.name;
}

/** The changes of the record's last entry. */
async function lastChanges(name: string): Promise<Entry['changes']> {
  const res = await t.request('GET', `/api/history/crm.Customer/${name}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Entry[] }).data.at(-1)?.changes;
}

async function put(name: string, body: Record<string, unknown>, headers: Record<string, string>) {
  const res = await t.request('PUT', `${CUSTOMERS}/${name}`, { body, headers });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  t = await createTestApp();
  salesUser = await userWithRoles(t.ctx, 'oracle-sales', ['Sales User']);
  salesManager = await userWithRoles(t.ctx, 'oracle-manager', ['Sales Manager']);
});
afterAll(() => t.close());

describe('the history of a write by a writer who gets the field masked', () => {
  it('records a right guess as a hidden change, as it records a wrong one', async () => {
    const name = await newCustomer('guessed');
    await put(name, { email: 'guessed@example.com' }, { authorization: salesUser });
    const right = await lastChanges(name);
    await put(name, { email: 'wrong@example.com' }, { authorization: salesUser });
    const wrong = await lastChanges(name);
    expect(right).toEqual([{ field: 'email', hidden: true }]);
    expect(wrong).toEqual(right);
  });

  it('does so too for a write run in a transaction (an Idempotency-Key)', async () => {
    const name = await newCustomer('guessed-tx');
    await put(
      name,
      { email: 'guessed-tx@example.com', status: 'Inactive' },
      { authorization: salesUser, 'idempotency-key': `oracle-${name}` },
    );
    expect(await lastChanges(name)).toEqual([
      { field: 'email', hidden: true },
      { field: 'status', old: 'Active', new: 'Inactive' },
    ]);
  });

  it('records no change of a field empty before and after: an empty field is not masked, so it tells nothing', async () => {
    const name = await newCustomer('no-phone');
    await put(name, { phone: null, status: 'Inactive' }, { authorization: salesUser });
    expect(await lastChanges(name)).toEqual([{ field: 'status', old: 'Active', new: 'Inactive' }]);
    await put(name, { phone: '+1 555 0199' }, { authorization: salesUser });
    expect(await lastChanges(name)).toEqual([{ field: 'phone', hidden: true }]);
  });

  it('records no change of a flagged field the write did not carry', async () => {
    const name = await newCustomer('untouched');
    await put(name, { status: 'Inactive' }, { authorization: salesUser });
    expect(await lastChanges(name)).toEqual([{ field: 'status', old: 'Active', new: 'Inactive' }]);
  });
});

describe('the history of a write by a writer who may read the field', () => {
  it('compares: the stored value sent again is no change', async () => {
    const name = await newCustomer('known');
    await put(name, { email: 'known@example.com', status: 'Inactive' }, { authorization: salesManager });
    expect(await lastChanges(name)).toEqual([{ field: 'status', old: 'Active', new: 'Inactive' }]);
  });
});
