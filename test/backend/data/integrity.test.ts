/**
 * Records that refer to each other, in MONOLITH against the real app: metadata publishes defaults, links and
 * flags; a unique field refuses a second record with 409 `duplicate`; a Link to no record is 422
 * `link_not_found`; deleting a record another one links to is 409 `linked`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceMetadata } from '../../../src/protocol';
import { createTestApp, makeAppsFixture, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    appsDir: makeAppsFixture({ crm: true, stock: true, support: false }),
    config: { apps: ['crm', 'stock', 'support'] },
  });
});
afterAll(async () => {
  await t?.close();
});

const json = async <T>(res: Response) => (await res.json()) as T;
const create = (doctype: string, body: unknown) => t.request('POST', `/api/resource/${doctype}`, { body });

describe('metadata', () => {
  it('publishes defaults, the long-text, date, check and Link types, and the unique flag', async () => {
    const support = await json<ServiceMetadata>(await t.request('GET', '/api/meta/support'));
    expect(support.label).toBe('Support');
    const fields = Object.fromEntries(support.doctypes[0]!.fields.map((f) => [f.name, f]));
    expect(fields.status).toMatchObject({ type: 'select', default: 'Open' });
    expect(fields.priority).toMatchObject({ default: 'Medium' });
    expect(fields.customer).toMatchObject({ type: 'link', link: 'crm.Customer', required: false });
    expect(fields.description).toMatchObject({ type: 'text' });
    expect(fields.due_date).toMatchObject({ type: 'date' });
    expect(fields.urgent).toMatchObject({ type: 'boolean', default: false });

    const stock = await json<ServiceMetadata>(await t.request('GET', '/api/meta/stock'));
    const item = Object.fromEntries(
      stock.doctypes.find((d) => d.name === 'stock.Item')!.fields.map((f) => [f.name, f]),
    );
    expect(item.quantity).toMatchObject({ type: 'int', default: 0 });
    expect(item.item_code).toMatchObject({ unique: true });
    expect(item.item_name?.unique).toBeUndefined();
  });
});

describe('unique fields', () => {
  it('answers 409 duplicate for a second record with the same value, naming the field', async () => {
    expect((await create('stock.Item', { item_code: 'U-1', item_name: 'First' })).status).toBe(201);
    const second = await create('stock.Item', { item_code: 'U-1', item_name: 'Second' });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({
      error: { code: 'duplicate', fields: [{ field: 'item_code', code: 'duplicate' }] },
    });
    const stored = await t.ctx.records.count('stock.Item', { item_code: 'U-1' });
    expect(stored).toBe(1);
  });

  it('lets a record keep its own value on update, and refuses taking another record’s', async () => {
    const a = (
      await json<{ data: { name: string } }>(await create('stock.Item', { item_code: 'U-2', item_name: 'A' }))
    ).data;
    const b = (
      await json<{ data: { name: string } }>(await create('stock.Item', { item_code: 'U-3', item_name: 'B' }))
    ).data;
    expect(
      (await t.request('PUT', `/api/resource/stock.Item/${a.name}`, { body: { item_name: 'A2' } })).status,
    ).toBe(200);
    const taken = await t.request('PUT', `/api/resource/stock.Item/${b.name}`, {
      body: { item_code: 'U-2' },
    });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ error: { code: 'duplicate' } });
  });
});

describe('unique fields under concurrent writes', () => {
  // The check before a write and the write are two statements: without the database's own unique index,
  // writes sent together all pass the check and all store the value.
  it('stores one of several creates of the same value sent together and answers 409 duplicate to the rest', async () => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        create('stock.Item', { item_code: 'U-RACE', item_name: `Racer ${i}` }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const refused of answers.filter((r) => r.status === 409)) {
      const body = await refused.text();
      expect(JSON.parse(body)).toMatchObject({
        error: { code: 'duplicate', fields: [{ field: 'item_code', code: 'duplicate' }] },
      });
    }
    expect(await t.ctx.records.count('stock.Item', { item_code: 'U-RACE' })).toBe(1);
  });

  it('lets one of two updates to the same free value win', async () => {
    const names = await Promise.all(
      ['U-5', 'U-6'].map(async (code) => {
        const res = await create('stock.Item', { item_code: code, item_name: code });
        return (await json<{ data: { name: string } }>(res)).data.name;
      }),
    );
    const answers = await Promise.all(
      names.map((name) =>
        t.request('PUT', `/api/resource/stock.Item/${name}`, { body: { item_code: 'U-FREE' } }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await t.ctx.records.count('stock.Item', { item_code: 'U-FREE' })).toBe(1);
  });
});

describe('Link fields', () => {
  it('stores a ticket linking an existing customer, and refuses one linking no record with 422 link_not_found', async () => {
    const customer = (
      await json<{ data: { name: string } }>(await create('crm.Customer', { customer_name: 'Linked Ltd' }))
    ).data;
    const ok = await create('support.Ticket', { subject: 'Works', customer: customer.name });
    expect(ok.status).toBe(201);
    expect((await json<{ data: Record<string, unknown> }>(ok)).data).toMatchObject({
      customer: customer.name,
      status: 'Open',
      priority: 'Medium',
    });

    const broken = await create('support.Ticket', { subject: 'Broken', customer: 'CUST-99999' });
    expect(broken.status).toBe(422);
    expect(await broken.json()).toMatchObject({
      error: { code: 'link_not_found', fields: [{ field: 'customer', code: 'link_not_found' }] },
    });
    expect(await t.ctx.records.count('support.Ticket', { subject: 'Broken' })).toBe(0);
  });

  it('refuses an update that points a link at no record', async () => {
    const ticket = (
      await json<{ data: { name: string } }>(await create('support.Ticket', { subject: 'Later' }))
    ).data;
    const res = await t.request('PUT', `/api/resource/support.Ticket/${ticket.name}`, {
      body: { customer: 'CUST-88888' },
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: { code: 'link_not_found' } });
  });

  it('answers 409 linked when deleting a customer a ticket links to, and deletes it once unlinked', async () => {
    const customer = (
      await json<{ data: { name: string } }>(await create('crm.Customer', { customer_name: 'Kept Co' }))
    ).data;
    const ticket = (
      await json<{ data: { name: string } }>(
        await create('support.Ticket', { subject: 'Keeps', customer: customer.name }),
      )
    ).data;

    const refused = await t.request('DELETE', `/api/resource/crm.Customer/${customer.name}`);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'linked' } });
    expect(await t.ctx.records.count('crm.Customer', { customer_name: 'Kept Co' })).toBe(1);

    expect(
      (await t.request('PUT', `/api/resource/support.Ticket/${ticket.name}`, { body: { customer: null } }))
        .status,
    ).toBe(200);
    expect((await t.request('DELETE', `/api/resource/crm.Customer/${customer.name}`)).status).toBe(200);
  });
});
