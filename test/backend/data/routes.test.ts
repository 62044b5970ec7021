import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceMetadata } from '../../../src/protocol';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Rec {
  name: string;
  [field: string]: unknown;
}
const json = async <T>(res: Response) => (await res.json()) as T;
const create = (doctype: string, body: unknown) => t.request('POST', `/api/resource/${doctype}`, { body });
const list = (doctype: string, params: Record<string, string> = {}) =>
  t.request('GET', `/api/resource/${doctype}?${new URLSearchParams(params)}`);
const rowsIn = (doctype: string) =>
  t.ctx.db
    .query<{ name: string }>('SELECT name FROM records WHERE doctype = $1', [doctype])
    .then((r) => r.rows);

describe('GET /api/meta/:app', () => {
  it('describes the app’s DocTypes, field flags and menus', async () => {
    const res = await t.request('GET', '/api/meta/crm');
    expect(res.status).toBe(200);
    const meta = await json<ServiceMetadata>(res);
    expect(meta.service).toBe('crm');
    const customer = meta.doctypes.find((d) => d.name === 'crm.Customer')!;
    expect(customer.titleField).toBe('customer_name');
    expect(customer.fields.find((f) => f.name === 'email')).toMatchObject({ pii: true, type: 'email' });
    expect(meta.menus).toContainEqual({ label: 'Customers', doctype: 'crm.Customer' });
  });

  it('answers 404 unknown_service for an app that is not installed', async () => {
    const res = await t.request('GET', '/api/meta/hr');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'unknown_service' } });
  });
});

describe('DocType records', () => {
  it('creates, reads, updates and deletes a record with a generated name', async () => {
    const created = await create('crm.Customer', {
      customer_name: '  Ada Lovelace ',
      email: 'ada@example.com',
    });
    expect(created.status).toBe(201);
    const { data } = await json<{ data: Rec }>(created);
    expect(data.name).toMatch(/^CUST-\d{5}$/);
    expect(data).toMatchObject({ customer_name: 'Ada Lovelace', email: 'ada@example.com', status: 'Active' });
    expect(typeof data.creation).toBe('string');

    const read = await json<{ data: Rec }>(await t.request('GET', `/api/resource/crm.Customer/${data.name}`));
    expect(read.data).toEqual(data);

    const updated = await t.request('PUT', `/api/resource/crm.Customer/${data.name}`, {
      body: { status: 'Inactive', email: null, name: 'ignored', modified: 'ignored' },
    });
    expect(updated.status).toBe(200);
    const after = (await json<{ data: Rec }>(updated)).data;
    expect(after).toMatchObject({ name: data.name, customer_name: 'Ada Lovelace', status: 'Inactive' });
    expect(after.email).toBeUndefined();

    const deleted = await t.request('DELETE', `/api/resource/crm.Customer/${data.name}`);
    expect(deleted.status).toBe(200);
    expect((await rowsIn('crm.Customer')).map((r) => r.name)).not.toContain(data.name);
    const gone = await t.request('GET', `/api/resource/crm.Customer/${data.name}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await t.request('DELETE', `/api/resource/crm.Customer/${data.name}`)).status).toBe(404);
    expect((await t.request('PUT', `/api/resource/crm.Customer/${data.name}`, { body: {} })).status).toBe(
      404,
    );
  });

  it('answers 404 unknown_doctype for a DocType that is not installed', async () => {
    for (const path of ['/api/resource/crm.Nope', '/api/resource/nonsense/x']) {
      const res = await t.request('GET', path);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'unknown_doctype' } });
    }
  });

  it('refuses invalid fields with 422 naming each field, never echoing the values, and stores nothing', async () => {
    const before = (await rowsIn('crm.Customer')).length;
    const secretEmail = 'not-an-email-SECRET123';
    const secretPhone = 'call me SECRET456';
    const res = await create('crm.Customer', {
      email: secretEmail,
      phone: secretPhone,
      status: 'Vip-SECRET789',
      favourite_colour: 'SECRET000',
    });
    expect(res.status).toBe(422);
    const text = await res.text();
    expect(text).not.toMatch(/SECRET/);
    const body = JSON.parse(text) as { error: { code: string; fields: { field: string; code: string }[] } };
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'customer_name', code: 'required' }),
        expect.objectContaining({ field: 'email', code: 'invalid_format' }),
        // The model's own pattern is not named to the user ("not a valid regex"): the rule is said instead.
        expect.objectContaining({
          field: 'phone',
          code: 'invalid_format',
          message: 'Phone is not in the expected format.',
        }),
        expect.objectContaining({ field: 'status', code: 'invalid_option' }),
        expect.objectContaining({ field: 'favourite_colour', code: 'unknown_field' }),
      ]),
    );
    expect((await rowsIn('crm.Customer')).length).toBe(before);
  });

  it('refuses a body that is not a JSON object, or not JSON at all', async () => {
    expect((await create('crm.Lead', [1, 2])).status).toBe(400);
    const res = await t.request('POST', '/api/resource/crm.Lead', {
      body: 'lead_name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
  });
});

describe('GET /api/resource/:doctype (list)', () => {
  beforeAll(async () => {
    const items = [
      ['A-1', 'Anvil', 5, 10],
      ['B-2', 'Bolt', 500, 0.25],
      ['C-3', 'Crowbar', 20, 15],
      ['D-4', 'Drill', 0, 80],
      ['E-5', 'anvil stand', 7, 30],
    ] as const;
    for (const [item_code, item_name, quantity, price] of items) {
      expect((await create('stock.Item', { item_code, item_name, quantity, price })).status).toBe(201);
    }
  });

  const names = async (params: Record<string, string>) => {
    const res = await list('stock.Item', params);
    expect(res.status).toBe(200);
    const body = await json<{ data: Rec[]; total: number }>(res);
    return { codes: body.data.map((r) => r.item_code), total: body.total, data: body.data };
  };

  it('filters with every operator, comparing numbers as numbers', async () => {
    const f = (filters: unknown) => names({ filters: JSON.stringify(filters), order_by: 'item_code asc' });
    expect((await f([['quantity', '>', 6]])).codes).toEqual(['B-2', 'C-3', 'E-5']);
    expect((await f([['quantity', '>=', 20]])).codes).toEqual(['B-2', 'C-3']);
    expect((await f([['quantity', '<', 6]])).codes).toEqual(['A-1', 'D-4']);
    expect((await f([['price', '<=', 10]])).codes).toEqual(['A-1', 'B-2']);
    expect((await f([['item_code', '!=', 'A-1']])).codes).toEqual(['B-2', 'C-3', 'D-4', 'E-5']);
    expect((await f([['item_name', 'like', 'anvil%']])).codes).toEqual(['A-1', 'E-5']);
    expect((await f([['item_code', 'in', ['C-3', 'D-4', 'Z-9']]])).codes).toEqual(['C-3', 'D-4']);
    expect((await f({ item_name: 'Drill' })).codes).toEqual(['D-4']);
    expect((await f([['name', 'like', 'ITEM-%']])).codes).toEqual(['A-1', 'B-2', 'C-3', 'D-4', 'E-5']);
    expect((await f([['creation', 'like', '20%']])).codes).toHaveLength(5);
    expect((await f([['quantity', 'like', '5%']])).codes).toEqual(['A-1', 'B-2']);
    expect((await f([['creation', '>', '2000-01-01T00:00:00Z']])).codes).toHaveLength(5);
    expect((await f([['quantity', '=', '500']])).codes).toEqual(['B-2']);
    const both = await f([
      ['quantity', '>', 1],
      ['price', '>', 12],
    ]);
    expect(both).toMatchObject({ codes: ['C-3', 'E-5'], total: 2 });
  });

  it('reads a backslash ending a like pattern as itself, never a 500', async () => {
    // The database refuses a pattern ending in its escape character (22025): this was 500 internal_error.
    expect((await create('crm.Lead', { lead_name: 'Ends with \\' })).status).toBe(201);
    for (const [field, pattern] of [
      ['lead_name', 'ends with \\'],
      ['lead_name', '%\\'],
      ['name', 'LEAD-%\\'],
      ['creation', '20%\\'],
    ] as const) {
      const res = await list('crm.Lead', { filters: JSON.stringify([[field, 'like', pattern]]) });
      expect(`${res.status} ${field}`).toBe(`200 ${field}`);
      const { data } = await json<{ data: Rec[] }>(res);
      expect(data.map((r) => r.lead_name)).toEqual(field === 'lead_name' ? ['Ends with \\'] : []);
    }
    // An escaped backslash still matches one, and an escaped % a percent sign only.
    const escaped = await list('crm.Lead', { filters: JSON.stringify([['lead_name', 'like', '%\\\\']]) });
    expect((await json<{ data: Rec[] }>(escaped)).data.map((r) => r.lead_name)).toEqual(['Ends with \\']);
  });

  it('pages and orders, reporting the total matching', async () => {
    const page1 = await names({ order_by: 'quantity desc', limit_page_length: '2' });
    expect(page1).toMatchObject({ codes: ['B-2', 'C-3'], total: 5 });
    const page2 = await names({ order_by: 'quantity desc', limit_page_length: '2', limit_start: '2' });
    expect(page2.codes).toEqual(['E-5', 'A-1']);
    expect((await names({ order_by: 'price asc, item_code desc' })).codes).toEqual([
      'B-2',
      'A-1',
      'C-3',
      'E-5',
      'D-4',
    ]);
  });

  it('returns only the requested fields', async () => {
    const { data } = await names({ fields: '["item_code","quantity"]', filters: '{"item_code":"A-1"}' });
    expect(data).toEqual([{ item_code: 'A-1', quantity: 5 }]);
  });

  it.each([
    ['an unknown filter field', { filters: '[["1=1; DROP TABLE records; --","=","x"]]' }, 'invalid_filters'],
    ['an unknown operator', { filters: '[["quantity","~","1"]]' }, 'invalid_filters'],
    ['a non-numeric value for a number', { filters: '[["quantity",">","lots"]]' }, 'invalid_filters'],
    ['filters that are not JSON', { filters: '[[' }, 'invalid_filters'],
    ['an unknown field in fields', { fields: '["item_code","password"]' }, 'invalid_fields'],
    ['an unknown order_by field', { order_by: 'data desc' }, 'invalid_order_by'],
    ['an order_by with SQL in it', { order_by: 'quantity; DROP TABLE records' }, 'invalid_order_by'],
    ['a page length over 500', { limit_page_length: '501' }, 'invalid_paging'],
    ['a negative start', { limit_start: '-1' }, 'invalid_paging'],
    // Times the database has no timestamp for: each was 500 internal_error (22008).
    ['a time in year 0', { filters: '[["modified",">","0000-01-01T00:00:00Z"]]' }, 'invalid_filters'],
    ['a time before year 0', { filters: '[["creation","<","-000001-01-01T00:00:00Z"]]' }, 'invalid_filters'],
    ['a time past year 9999', { filters: '[["modified","<","+010000-01-01T00:00:00Z"]]' }, 'invalid_filters'],
    [
      'a cursor in year 0',
      { cursor: btoa(JSON.stringify(['0000-01-01T00:00:00Z', 'ITEM-1'])) },
      'invalid_paging',
    ],
    [
      'a cursor on a day no month has',
      { cursor: btoa(JSON.stringify(['2026-02-30T00:00:00Z', 'ITEM-1'])) },
      'invalid_paging',
    ],
    [
      'a cursor at hour 24',
      { cursor: btoa(JSON.stringify(['2026-03-01T24:00:00Z', 'ITEM-1'])) },
      'invalid_paging',
    ],
  ])('refuses %s with 400', async (_label, params, code) => {
    const res = await list('stock.Item', params);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code } });
    expect((await rowsIn('stock.Item')).length).toBe(5);
  });

  it('defaults to 20 records per page', async () => {
    for (let i = 0; i < 21; i++) await create('stock.Warehouse', { warehouse_name: `W${i}` });
    const body = await json<{ data: Rec[]; total: number }>(await list('stock.Warehouse'));
    expect(body.data).toHaveLength(20);
    expect(body.total).toBe(21);
  });
});

describe('POST /api/method/:method', () => {
  const call = (method: string, body: unknown = {}) => t.request('POST', `/api/method/${method}`, { body });

  it('answers crm.api.customer_count with { message: <count> }', async () => {
    await t.ctx.db.query("DELETE FROM records WHERE doctype = 'crm.Customer'");
    await create('crm.Customer', { customer_name: 'One' });
    await create('crm.Customer', { customer_name: 'Two', status: 'Inactive' });
    const res = await call('crm.api.customer_count');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 2 });
    expect(await (await call('crm.api.customer_count', { status: 'Inactive' })).json()).toEqual({
      message: 1,
    });
  });

  it('answers stock.api.total_quantity and crm.api.ping', async () => {
    expect(await (await call('stock.api.total_quantity', { item_codes: ['A-1', 'C-3'] })).json()).toEqual({
      message: 25,
    });
    expect(await (await call('crm.api.ping')).json()).toEqual({ message: 'pong' });
  });

  it('refuses invalid kwargs with 422 and an unknown method with 404', async () => {
    const bad = await call('crm.api.customer_count', { status: 'Gold-SECRET' });
    expect(bad.status).toBe(422);
    const text = await bad.text();
    expect(text).not.toContain('SECRET');
    expect(JSON.parse(text)).toMatchObject({
      error: { code: 'validation_failed', fields: [{ field: 'status' }] },
    });
    const extra = await call('crm.api.ping', { args: 'not-a-list' });
    expect(extra.status).toBe(400);
    for (const name of ['crm.api.nope', 'nope', 'crm.api.ping;drop']) {
      const res = await call(name);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'unknown_method' } });
    }
  });
});
