/** The global search offline: the mocks run the platform's own search route over the seeded records. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchAnswer } from '../../src/protocol';
import { adminAuthorization, ORIGIN, startBackend, type TestBackend } from '../sdk/helpers';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend({ records: 'seeded' });
});
afterAll(() => backend.server.close());

describe('GET /api/search offline', () => {
  it('finds a seeded customer by part of its title', async () => {
    const customer = (
      await backend.env.store.list(backend.env.doctypes.get('crm.Customer')!, {
        filters: [],
        orderBy: [{ field: 'name', direction: 'asc' }],
        start: 0,
        pageLength: 1,
      })
    ).data[0]!;
    const title = String(customer.customer_name);
    const res = await fetch(`${ORIGIN}/api/search?q=${encodeURIComponent(title.slice(0, 5))}`, {
      headers: await adminAuthorization(backend),
    });
    const answer = (await res.json()) as SearchAnswer;
    expect(res.status).toBe(200);
    expect(answer.incomplete).toEqual([]);
    const hits = answer.groups.find((g) => g.docType === 'crm.Customer')?.hits ?? [];
    expect(hits).toContainEqual({ name: customer.name, title });
  });
});
