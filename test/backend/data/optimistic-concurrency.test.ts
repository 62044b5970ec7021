/**
 * Optimistic concurrency on `PUT /api/resource/:doctype/:name` (docs/http-api.md#conflicts): a save that
 * carries the `modified` it loaded is refused with 409 `conflict` once the record changed since, and stores
 * nothing; a save carrying the current `modified`, or none at all, is stored as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Item {
  name: string;
  item_name: string;
  modified: string;
}

async function createItem(code: string): Promise<Item> {
  const res = await t.request('POST', '/api/resource/stock.Item', {
    body: { item_code: code, item_name: 'First name' },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: Item }).data;
}

const put = (name: string, body: Record<string, unknown>) =>
  t.request('PUT', `/api/resource/stock.Item/${encodeURIComponent(name)}`, { body });

async function stored(name: string): Promise<Item> {
  const res = await t.request('GET', `/api/resource/stock.Item/${encodeURIComponent(name)}`);
  return ((await res.json()) as { data: Item }).data;
}

describe('PUT with the loaded modified', () => {
  it('stores a save whose modified is the stored one', async () => {
    const item = await createItem('OCC-1');
    const res = await put(item.name, { item_name: 'Second name', modified: item.modified });
    expect(res.status).toBe(200);
    expect((await stored(item.name)).item_name).toBe('Second name');
  });

  it('answers 409 conflict to a save loaded before another one was stored, and keeps the newer version', async () => {
    const item = await createItem('OCC-2');
    // Another user saves first (modified moves on).
    await new Promise((resolve) => setTimeout(resolve, 5));
    const first = await put(item.name, { item_name: 'Saved by Ada', modified: item.modified });
    expect(first.status).toBe(200);
    const newer = ((await first.json()) as { data: Item }).data;
    expect(Date.parse(newer.modified)).toBeGreaterThan(Date.parse(item.modified));

    const stale = await put(item.name, { item_name: 'Saved by Bob', modified: item.modified });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({
      error: { code: 'conflict', message: 'This record was changed by someone else since you opened it.' },
    });
    expect((await stored(item.name)).item_name).toBe('Saved by Ada');

    // Bob chose to keep his version: he saves again with the modified he now saw.
    const again = await put(item.name, { item_name: 'Saved by Bob', modified: newer.modified });
    expect(again.status).toBe(200);
    expect((await stored(item.name)).item_name).toBe('Saved by Bob');
  });

  it('does not check a client that sends no modified', async () => {
    const item = await createItem('OCC-3');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await put(item.name, { item_name: 'One' })).status).toBe(200);
    expect((await put(item.name, { item_name: 'Two' })).status).toBe(200);
    expect((await stored(item.name)).item_name).toBe('Two');
  });
});
