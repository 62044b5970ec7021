import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crmApp } from '../../backend/apps/crm/app';
import { stockApp } from '../../backend/apps/stock/app';
import type { ListQuery } from '../../backend/data/list-query';
import { MemoryRecordStore } from '../../backend/data/memory-record-store';
import { validateDocument } from '../../backend/data/validate';
import { createDocTypeRegistry, type DocTypeRegistry } from '../../backend/doctypes/registry';
import { seedRecords } from '../../mocks/support/seed-records';
import { ORIGIN, startBackend, type TestBackend } from '../sdk/helpers';

interface Seeded {
  doctypes: DocTypeRegistry;
  store: MemoryRecordStore;
}

/** A record store as the mock backend starts it: seeded unless `empty`. */
function seededStore(records: 'seeded' | 'empty' = 'seeded'): Seeded {
  const doctypes = createDocTypeRegistry([crmApp, stockApp]);
  const store = new MemoryRecordStore();
  if (records === 'seeded') seedRecords(store, doctypes);
  return { doctypes, store };
}

/** Every record, by name. */
const ALL: ListQuery = {
  filters: [],
  orderBy: [{ field: 'name', direction: 'asc' }],
  start: 0,
  pageLength: 100,
};

async function records(env: Seeded, doctype: string): Promise<Record<string, unknown>[]> {
  return (await env.store.list(env.doctypes.get(doctype)!, ALL)).data;
}

describe('the seeded record store', () => {
  it('starts with a few records per sample DocType, each valid for its model', async () => {
    const env = seededStore();
    const counts: Record<string, number> = {};
    for (const d of ['crm.Customer', 'crm.Lead', 'stock.Item', 'stock.Warehouse']) {
      counts[d] = (await records(env, d)).length;
    }
    expect(counts).toEqual({ 'crm.Customer': 3, 'crm.Lead': 2, 'stock.Item': 3, 'stock.Warehouse': 2 });
    for (const doctype of env.doctypes.list()) {
      for (const { name, creation, modified, modified_by, ...values } of await records(env, doctype.name)) {
        expect(name).toMatch(new RegExp(`^${doctype.namePrefix}-0000[1-3]$`));
        expect(modified).toBe(creation);
        expect(modified_by).toBe('Administrator');
        expect(validateDocument(doctype, values)).toEqual(values);
      }
    }
    expect((await records(env, 'crm.Customer'))[0]).toMatchObject({
      customer_name: expect.stringMatching(/\w/),
      email: expect.stringMatching(/@example\.com$/),
      phone: expect.stringMatching(/^\+\d/),
    });
  });

  it('gives the same values on every start', async () => {
    const first = seededStore();
    const second = seededStore();
    for (const doctype of ['crm.Customer', 'crm.Lead', 'stock.Item', 'stock.Warehouse']) {
      expect(await records(second, doctype)).toEqual(await records(first, doctype));
    }
  });

  it('starts empty when asked, for tests that count what they store', async () => {
    const env = seededStore('empty');
    for (const doctype of env.doctypes.list()) expect(await records(env, doctype.name)).toEqual([]);
  });
});

describe('the data API over the seeded store', () => {
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await startBackend({ records: 'seeded' });
  });
  afterAll(() => backend.server.close());

  it('lists the seeded records, and a record created now comes first in the default order', async () => {
    const seeded = (await records(backend.env, 'stock.Item')).map((r) => r.item_name);
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
