import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { frameworkMDataProvider } from '../../../src/sdk/data';
import { fetchServiceMetadata } from '../../../src/sdk/data/service-metadata';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { isSdkError } from '../../../src/sdk/errors';
import { createCsrfTokenStore, createHttpClient } from '../../../src/sdk/http';
import { SecurityClient } from '../../../src/sdk/security';
import { ORIGIN, startBackend, storedRecord, type TestBackend } from '../helpers';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend();
});
afterEach(() => {
  DiscoveryClient.reset();
  backend.server.resetHandlers();
  backend.requests.length = 0;
  backend.env.setMode('metadata');
  backend.env.store.clear();
});
afterAll(() => backend.server.close());

async function setup() {
  const security = new SecurityClient({ baseUrl: ORIGIN });
  await security.load(); // what the shell does at boot
  const http = createHttpClient({ security, csrf: createCsrfTokenStore(undefined) });
  DiscoveryClient.get_instance({ gatewayUrl: ORIGIN });
  return { provider: frameworkMDataProvider({ http }), http };
}

async function schemaOf(service: string, doctype: string) {
  const { http } = await setup();
  const meta = await fetchServiceMetadata(`${ORIGIN}/api/meta/${service}`, { http });
  return meta.doctypes.find((d) => d.name === doctype)!;
}

describe('frameworkMDataProvider', () => {
  it('creates crm.Customer as application/jose in metadata mode and stock.Item as plain JSON', async () => {
    const { provider } = await setup();
    const customerSchema = await schemaOf('crm', 'crm.Customer');
    const itemSchema = await schemaOf('stock', 'stock.Item');

    const customer = await provider.create({
      resource: 'crm.Customer',
      variables: { customer_name: 'Ada', email: 'ada@example.com' },
      meta: { schema: customerSchema },
    });
    const item = await provider.create({
      resource: 'stock.Item',
      variables: { item_code: 'BOLT', item_name: 'Bolt', quantity: 3 },
      meta: { schema: itemSchema },
    });

    await backend.settle();
    const [customerPost] = backend.to('/api/resource/crm.Customer', 'POST');
    const [itemPost] = backend.to('/api/resource/stock.Item', 'POST');
    expect(customerPost!.headers.get('content-type')).toBe('application/jose');
    expect(customerPost!.body).not.toContain('ada@example.com');
    expect(customerPost!.headers.get('x-platform-service')).toBe('crm');
    expect(itemPost!.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(itemPost!.body)).toEqual({ item_code: 'BOLT', item_name: 'Bolt', quantity: 3 });
    expect(itemPost!.headers.get('x-platform-service')).toBe('stock');
    expect((await storedRecord(backend, 'crm.Customer', String(customer.data.id)))?.email).toBe(
      'ada@example.com',
    );
    expect((await storedRecord(backend, 'stock.Item', String(item.data.id)))?.quantity).toBe(3);
  });

  it('encrypts flagged fields of a write given no meta.schema: personal data never leaves in clear', async () => {
    const { provider } = await setup();
    // A remote's own code calling the provider (or useCreate/useUpdate) without `meta: { schema }`.
    const created = await provider.create({
      resource: 'crm.Customer',
      variables: { customer_name: 'Grace', email: 'grace@example.com' },
    });
    await provider.update({
      resource: 'crm.Customer',
      id: created.data.id!,
      variables: { phone: '+49 30 1234567' },
    });
    await provider.update({
      resource: 'crm.Customer',
      id: created.data.id!,
      variables: { email: 'grace.h@example.com' },
    });
    await backend.settle();
    const writes = [
      ...backend.to('/api/resource/crm.Customer', 'POST'),
      ...backend.to(`/api/resource/crm.Customer/${created.data.id}`, 'PUT'),
    ];
    expect(writes).toHaveLength(3);
    for (const write of writes) {
      expect(write.headers.get('content-type')).toBe('application/jose');
      expect(write.body).not.toMatch(/grace|\+49/);
    }
    expect((await storedRecord(backend, 'crm.Customer', String(created.data.id)))?.email).toBe(
      'grace.h@example.com',
    );
    // The service's metadata was read once for all three writes.
    expect(backend.requests.filter((r) => new URL(r.url).pathname === '/api/meta/crm')).toHaveLength(1);
  });

  it('maps pagination, sorters and filters to the data API and never forwards queryKey or signal', async () => {
    const { provider } = await setup();
    for (const [code, quantity] of [
      ['A-1', 5],
      ['A-2', 7],
      ['B-1', 9],
      ['A-3', 1],
    ] as const) {
      await provider.create({
        resource: 'stock.Item',
        variables: { item_code: code, item_name: code, quantity },
      });
    }
    const controller = new AbortController();
    const page = await provider.getList({
      resource: 'stock.Item',
      pagination: { currentPage: 2, pageSize: 1, mode: 'server' },
      sorters: [{ field: 'quantity', order: 'desc' }],
      filters: [
        { field: 'item_code', operator: 'contains', value: 'A-' },
        { field: 'quantity', operator: 'gte', value: 2 },
      ],
      meta: { queryKey: ['stock.Item', 'list'], signal: controller.signal },
    });

    expect(page.total).toBe(2);
    expect(page.data.map((r) => r.item_code)).toEqual(['A-1']);
    expect(page.data[0]!.id).toBe(page.data[0]!.name);
    await backend.settle();
    const [list] = backend.to('/api/resource/stock.Item', 'GET');
    expect(Object.fromEntries(list!.url.searchParams)).toEqual({
      filters: JSON.stringify([
        ['item_code', 'like', '%A-%'],
        ['quantity', '>=', 2],
      ]),
      limit_start: '1',
      limit_page_length: '1',
      order_by: 'quantity desc',
    });
  });

  it('reads, updates, fetches many and deletes one record through the owner', async () => {
    const { provider } = await setup();
    const created = await provider.create({
      resource: 'stock.Warehouse',
      variables: { warehouse_name: 'North', location: 'Oslo' },
    });
    const id = created.data.id!;
    const other = await provider.create({
      resource: 'stock.Warehouse',
      variables: { warehouse_name: 'South' },
    });

    expect((await provider.getOne({ resource: 'stock.Warehouse', id })).data.location).toBe('Oslo');
    const updated = await provider.update({
      resource: 'stock.Warehouse',
      id,
      variables: { ...created.data, location: 'Bergen' },
    });
    expect(updated.data.location).toBe('Bergen');
    const many = await provider.getMany!({ resource: 'stock.Warehouse', ids: [id, other.data.id!] });
    expect(many.data.map((r) => r.warehouse_name).sort()).toEqual(['North', 'South']);
    await provider.deleteOne({ resource: 'stock.Warehouse', id });
    expect(await storedRecord(backend, 'stock.Warehouse', String(id))).toBeUndefined();
  });

  it('aborts a request when meta.signal fires', async () => {
    const { provider } = await setup();
    const controller = new AbortController();
    controller.abort();
    const error = await provider
      .getList({ resource: 'stock.Item', meta: { signal: controller.signal } })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(backend.to('/api/resource/stock.Item', 'GET')).toHaveLength(0);
  });

  it('calls an RPC method of the owning service through custom()', async () => {
    const { provider } = await setup();
    const answer = await provider.custom!({ url: 'crm.api.ping', method: 'post' });
    expect(answer.data).toBe('pong');
    expect(backend.to('/api/method/crm.api.ping', 'POST')).toHaveLength(1);
  });

  it('fails unknown resources with unknown_resource, or uses the fallback API url', async () => {
    const { provider, http } = await setup();
    const error = await provider.getList({ resource: 'hr.Employee' }).catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('unknown_resource');

    const fallback = frameworkMDataProvider({ http, fallbackApiUrl: `${ORIGIN}/api` });
    const answer = await fallback.getList({ resource: 'hr.Employee' }).catch((e: unknown) => e);
    expect(isSdkError(answer) && answer.code).toBe('unknown_doctype');
    expect(fallback.getApiUrl()).toBe(`${ORIGIN}/api`);
  });

  it('refuses filter operators the data API cannot express', async () => {
    const { provider } = await setup();
    const error = await provider
      .getList({ resource: 'stock.Item', filters: [{ operator: 'or', value: [] }] })
      .catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('unsupported_filter');
  });
});
