/**
 * The offline backend's snapshot (docs/mfe-teams.md#a-teams-app-offline): what one backend stored and who
 * signed in to it carry over to a new backend started from its snapshot, as a page reload does in the
 * browser: the session cookie and CSRF token of the first still write through the second, and the stored
 * record is there. Every write is followed by `afterWrite`, reads are not.
 */
import { describe, expect, it } from 'vitest';
import { createMockBackend, MOCK_USER, type OfflineSnapshot } from '../../mocks/support/create-mock-backend';

const ORIGIN = 'http://127.0.0.1:5173';

function post(path: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN, ...headers },
    body: JSON.stringify(body),
  });
}

describe('the offline backend across a reload', () => {
  it('keeps records, the session and its CSRF token, and says when it saved', async () => {
    const writes: string[] = [];
    let saved: OfflineSnapshot | undefined;
    const first = await createMockBackend({
      records: 'empty',
      afterWrite: async (backend) => {
        writes.push('write');
        saved = backend.snapshot();
      },
    });
    expect(first.sampleRecords).toBe(0);
    const login = await first.handle(post('/api/method/login', MOCK_USER));
    expect(login.response.status).toBe(200);
    const { csrf_token } = (await login.response.json()) as { csrf_token: string };
    const cookie = login.setCookies.map((c) => c.split(';')[0]).join('; ');
    const session = { cookie, 'x-csrf-token': csrf_token };
    const created = await first.handle(
      post(
        '/api/resource/stock.Item',
        { item_code: 'KEEP-1', item_name: 'Kept', quantity: 1, price: 2 },
        session,
      ),
    );
    expect(created.response.status).toBe(201);
    const { data } = (await created.response.json()) as { data: { name: string } };
    await first.handle(new Request(`${ORIGIN}/api/resource/stock.Item`, { headers: { cookie } }));
    expect(writes).toEqual(['write', 'write']);

    const second = await createMockBackend({ from: saved! });
    expect(second.sampleRecords).toBeGreaterThan(0);
    const read = await second.fetch(
      new Request(`${ORIGIN}/api/resource/stock.Item/${data.name}`, { headers: { cookie } }),
    );
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: { item_name: string } }).data.item_name).toBe('Kept');
    // The store is the snapshot's: the second backend's seeds gave way to it.
    expect(await second.store.count('stock.Item')).toBe(1);
    const next = await second.fetch(
      post(
        '/api/resource/stock.Item',
        { item_code: 'KEEP-2', item_name: 'Next', quantity: 1, price: 2 },
        session,
      ),
    );
    expect(next.status).toBe(201);
    // The naming series went on from the snapshot's.
    expect(((await next.json()) as { data: { name: string } }).data.name).not.toBe(data.name);
  });
});
