import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListQuery } from '../../backend/data/list-query';
import { validateDocument } from '../../backend/data/validate';
import { createMockEnvironment, type MockEnvironment } from '../../mocks/support/environment';
import type { MockKeyRing } from '../../mocks/support/key-ring';
import { ORIGIN, startBackend, type TestBackend } from '../sdk/helpers';

/** The seeds never touch the key ring: a stub keeps these cases free of key generation. */
const keyRing = {} as MockKeyRing;

/** Every record, by name. */
const ALL: ListQuery = {
  filters: [],
  orderBy: [{ field: 'name', direction: 'asc' }],
  start: 0,
  pageLength: 100,
};

function records(env: MockEnvironment, doctype: string): Record<string, unknown>[] {
  return env.store.list(doctype, ALL).data;
}

describe('the seeded record store', () => {
  it('starts with a few records per sample DocType, each valid for its model', () => {
    const env = createMockEnvironment({ keyRing });
    const counts = Object.fromEntries(
      ['crm.Customer', 'crm.Lead', 'stock.Item', 'stock.Warehouse'].map((d) => [d, records(env, d).length]),
    );
    expect(counts).toEqual({ 'crm.Customer': 3, 'crm.Lead': 2, 'stock.Item': 3, 'stock.Warehouse': 2 });
    for (const doctype of env.doctypes.list()) {
      for (const { name, creation, modified, ...values } of records(env, doctype.name)) {
        expect(name).toMatch(new RegExp(`^${doctype.namePrefix}-0000[1-3]$`));
        expect(modified).toBe(creation);
        expect(validateDocument(doctype, values)).toEqual(values);
      }
    }
    expect(records(env, 'crm.Customer')[0]).toMatchObject({
      customer_name: expect.stringMatching(/\w/),
      email: expect.stringMatching(/@example\.com$/),
      phone: expect.stringMatching(/^\+\d/),
    });
  });

  it('gives the same values on every start', () => {
    const first = createMockEnvironment({ keyRing });
    const second = createMockEnvironment({ keyRing });
    for (const doctype of ['crm.Customer', 'crm.Lead', 'stock.Item', 'stock.Warehouse']) {
      expect(records(second, doctype)).toEqual(records(first, doctype));
    }
  });

  it('starts empty when asked, for tests that count what they store', () => {
    const env = createMockEnvironment({ keyRing, records: 'empty' });
    for (const doctype of env.doctypes.list()) expect(records(env, doctype.name)).toEqual([]);
  });
});

describe('the data API over the seeded store', () => {
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await startBackend({ records: 'seeded' });
  });
  afterAll(() => backend.server.close());

  it('lists the seeded records, and a record created now comes first in the default order', async () => {
    const seeded = records(backend.env, 'stock.Item').map((r) => r.item_name);
    const listNames = async () => {
      const response = await fetch(`${ORIGIN}/api/resource/stock.Item`);
      const body = (await response.json()) as { data: Array<{ item_name: string }>; total: number };
      return { names: body.data.map((r) => r.item_name), total: body.total };
    };
    // `modified desc`: the newest seed first.
    expect(await listNames()).toEqual({ names: [...seeded].reverse(), total: 3 });

    const created = await fetch(`${ORIGIN}/api/resource/stock.Item`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ item_code: 'NEW-1', item_name: 'Fresh widget' }),
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { data: { name: string } }).data.name).toBe('ITEM-00004');
    expect(await listNames()).toEqual({ names: ['Fresh widget', ...[...seeded].reverse()], total: 4 });
  });
});
