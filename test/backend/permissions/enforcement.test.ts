/**
 * Roles and permissions enforced by the data and RPC routes (MONOLITH, docs/permissions.md), through the
 * real app: a Stock User, a Sales User without `read_pii`, a Sales Manager and a System Manager changing a
 * DocType's rules at run time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PII_MASK } from '../../../backend/permissions/mask';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let stock: string;
let sales: string;
let manager: string;
let customerName = '';

const as = (authorization: string) => ({ headers: { authorization } });

beforeAll(async () => {
  t = await createTestApp();
  stock = await userWithRoles(t.ctx, 'stock.user', ['Stock User']);
  sales = await userWithRoles(t.ctx, 'sales.user', ['Sales User']);
  manager = await userWithRoles(t.ctx, 'sales.manager', ['Sales Manager']);
  const res = await t.request('POST', '/api/resource/crm.Customer', {
    body: { customer_name: 'Ada', email: 'ada@example.com', phone: '+44 20 7946 0958' },
  });
  customerName = ((await res.json()) as { data: { name: string } }).data.name;
});
afterAll(() => t?.close());

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

describe('a Stock User', () => {
  it('reads and creates stock.Item but gets 403 forbidden on delete', async () => {
    const created = await t.request('POST', '/api/resource/stock.Item', {
      ...as(stock),
      body: { item_code: 'I-1', item_name: 'Bolt' },
    });
    expect(created.status).toBe(201);
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    expect((await t.request('GET', '/api/resource/stock.Item', as(stock))).status).toBe(200);
    expect((await t.request('GET', `/api/resource/stock.Item/${name}`, as(stock))).status).toBe(200);
    const deleted = await t.request('DELETE', `/api/resource/stock.Item/${name}`, as(stock));
    expect(deleted.status).toBe(403);
    expect(await errorOf(deleted)).toEqual({ code: 'forbidden', message: 'You may not delete stock.Item.' });
    expect((await t.request('GET', `/api/resource/stock.Item/${name}`)).status).toBe(200);
  });

  it('gets 403 on every crm.Customer operation (a list too, not an empty one) and on a crm RPC', async () => {
    const path = `/api/resource/crm.Customer/${customerName}`;
    const answers = [
      await t.request('GET', '/api/resource/crm.Customer', as(stock)),
      await t.request('POST', '/api/resource/crm.Customer', { ...as(stock), body: { customer_name: 'X' } }),
      await t.request('GET', path, as(stock)),
      await t.request('PUT', path, { ...as(stock), body: { customer_name: 'Y' } }),
      await t.request('DELETE', path, as(stock)),
      await t.request('POST', '/api/method/crm.api.customer_count', { ...as(stock), body: {} }),
    ];
    expect(answers.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403]);
    const bodies = await Promise.all(answers.map(errorOf));
    expect(bodies.map((b) => b.message)).toEqual([
      'You may not read crm.Customer.',
      'You may not create crm.Customer.',
      'You may not read crm.Customer.',
      'You may not write crm.Customer.',
      'You may not delete crm.Customer.',
      'You may not call crm.api.customer_count.',
    ]);
    for (const body of bodies) expect(JSON.stringify(body)).not.toContain('Ada');
    const own = await t.request('POST', '/api/method/stock.api.total_quantity', { ...as(stock), body: {} });
    expect(own.status).toBe(200);
  });

  it('whoami answers the roles and the effective permissions per DocType', async () => {
    const res = await t.request('GET', '/api/method/whoami', as(stock));
    expect(res.status).toBe(200);
    const { message } = (await res.json()) as {
      message: { user: string; roles: string[]; permissions: Record<string, Record<string, boolean>> };
    };
    expect(message.user).toBe('stock.user');
    expect(message.roles).toEqual(['Stock User']);
    expect(message.permissions['stock.Item']).toEqual({
      read: true,
      create: true,
      write: true,
      delete: false,
      read_pii: false,
    });
    expect(message.permissions['crm.Customer']?.read).toBe(false);
  });
});

describe('personal data on the read path', () => {
  it('a Sales User without read_pii sees email and phone masked in lists and single reads', async () => {
    const list = await t.request('GET', '/api/resource/crm.Customer', as(sales));
    expect(list.status).toBe(200);
    const page = (await list.json()) as { data: Array<Record<string, unknown>>; masked_fields: string[] };
    expect(page.masked_fields).toEqual(['email', 'phone']);
    expect(page.data[0]).toMatchObject({ customer_name: 'Ada', email: PII_MASK, phone: PII_MASK });
    const one = await t.request('GET', `/api/resource/crm.Customer/${customerName}`, as(sales));
    const body = (await one.json()) as { data: Record<string, unknown>; masked_fields: string[] };
    expect(body.data).toMatchObject({ email: PII_MASK, phone: PII_MASK });
    expect(body.masked_fields).toEqual(['email', 'phone']);
    expect(JSON.stringify(body)).not.toContain('ada@example.com');
  });

  it('refuses filtering on a masked field and writing the mask back; other fields still save', async () => {
    const filters = encodeURIComponent(JSON.stringify([['email', '=', 'ada@example.com']]));
    const filtered = await t.request('GET', `/api/resource/crm.Customer?filters=${filters}`, as(sales));
    expect(filtered.status).toBe(403);
    const path = `/api/resource/crm.Customer/${customerName}`;
    const echoed = await t.request('PUT', path, {
      ...as(sales),
      body: { customer_name: 'Ada L.', email: PII_MASK },
    });
    expect(echoed.status).toBe(422);
    expect((await errorOf(echoed)).code).toBe('masked_value');
    const renamed = await t.request('PUT', path, { ...as(sales), body: { customer_name: 'Ada L.' } });
    expect(renamed.status).toBe(200);
    const full = (await (await t.request('GET', path, as(manager))).json()) as {
      data: Record<string, unknown>;
      masked_fields?: string[];
    };
    expect(full.data).toMatchObject({ customer_name: 'Ada L.', email: 'ada@example.com' });
    expect(full.masked_fields ?? []).toEqual([]);
  });

  it('a Sales User may not delete a customer; a Sales Manager may', async () => {
    const created = await t.request('POST', '/api/resource/crm.Customer', {
      ...as(sales),
      body: { customer_name: 'Temp' },
    });
    expect(created.status).toBe(201);
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    expect((await t.request('DELETE', `/api/resource/crm.Customer/${name}`, as(sales))).status).toBe(403);
    expect((await t.request('DELETE', `/api/resource/crm.Customer/${name}`, as(manager))).status).toBe(200);
  });
});

describe('rules changed at run time', () => {
  it('a System Manager grants delete to Stock User and it applies at once; others may not change rules', async () => {
    const created = await t.request('POST', '/api/resource/stock.Item', {
      ...as(stock),
      body: { item_code: 'I-2', item_name: 'Nut' },
    });
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    const rules = [{ role: 'Stock User', read: true, create: true, write: true, delete: true }];
    const refused = await t.request('PUT', '/api/permissions/stock.Item', { ...as(stock), body: { rules } });
    expect(refused.status).toBe(403);
    const set = await t.request('PUT', '/api/permissions/stock.Item', { body: { rules } });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { data: { customized: boolean } }).data.customized).toBe(true);
    expect((await t.request('DELETE', `/api/resource/stock.Item/${name}`, as(stock))).status).toBe(200);
    expect((await t.request('DELETE', '/api/permissions/stock.Item')).status).toBe(200);
    const again = await t.request('POST', '/api/resource/stock.Item', {
      ...as(stock),
      body: { item_code: 'I-3', item_name: 'Washer' },
    });
    const third = ((await again.json()) as { data: { name: string } }).data.name;
    expect((await t.request('DELETE', `/api/resource/stock.Item/${third}`, as(stock))).status).toBe(403);
  });
});
