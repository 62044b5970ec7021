/**
 * A filter on a flagged field tells its caller that field's value for every record it returns, so a list
 * filtered that way is a reveal of that field for those records (docs/permissions.md#reveals-are-audited),
 * whatever the projection returned.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../backend/audit/chain';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let salesManager: string;
let ada: string;

const CUSTOMERS = '/api/resource/crm.Customer';

async function allEntries(): Promise<AuditEntry[]> {
  return (await t.ctx.audit!.list({ limit: 1000 })).data;
}

const listed = (filters: unknown, fields: string[]) =>
  t.request(
    'GET',
    `${CUSTOMERS}?${new URLSearchParams({ filters: JSON.stringify(filters), fields: JSON.stringify(fields) })}`,
    { headers: { authorization: salesManager } },
  );

beforeAll(async () => {
  t = await createTestApp();
  salesManager = await userWithRoles(t.ctx, 'filter-manager', ['Sales Manager']);
  const res = await t.request('POST', CUSTOMERS, {
    body: { customer_name: 'Ada Filter', email: 'ada.filter@example.com' },
  });
  expect(res.status).toBe(201);
  ada = ((await res.json()) as { data: { name: string } }).data.name;
  await t.request('POST', CUSTOMERS, {
    body: { customer_name: 'Bob Filter', email: 'bob.filter@example.com' },
  });
});
afterAll(() => t.close());

describe('a list filtered on a flagged field', () => {
  let before: number;
  beforeEach(async () => {
    before = (await allEntries()).length;
  });

  it('audits the field it tested for each record returned, though the projection leaves it out', async () => {
    const res = await listed([['email', '=', 'ada.filter@example.com']], ['name', 'customer_name']);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { name: string }[] };
    expect(body.data.map((r) => r.name)).toEqual([ada]);
    const added = (await allEntries()).slice(before);
    expect(added.map((e) => [e.record, e.fields, e.route, e.user])).toEqual([
      [ada, ['email'], 'list', 'filter-manager'],
    ]);
  });

  it('names the record even when the projection leaves its name out, and answers without it', async () => {
    const res = await listed([['email', '=', 'ada.filter@example.com']], ['customer_name']);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([{ customer_name: 'Ada Filter' }]);
    const added = (await allEntries()).slice(before);
    expect(added.map((e) => [e.record, e.fields])).toEqual([[ada, ['email']]]);
  });

  it('names the tested fields with the returned ones, once each', async () => {
    const res = await listed({ email: 'ada.filter@example.com' }, ['name', 'email', 'phone']);
    expect(res.status).toBe(200);
    const added = (await allEntries()).slice(before);
    expect(added.map((e) => [e.record, e.fields])).toEqual([[ada, ['email', 'phone']]]);
  });

  it('counts != and in as tests of the value too', async () => {
    const res = await listed(
      [
        ['email', 'in', ['ada.filter@example.com', 'nobody@example.com']],
        ['phone', '!=', '+1 555 0100'],
      ],
      ['name'],
    );
    expect(res.status).toBe(200);
    const added = (await allEntries()).slice(before);
    expect(added.map((e) => [e.record, e.fields])).toEqual([[ada, ['email', 'phone']]]);
  });

  it('adds nothing when no record matched', async () => {
    const res = await listed([['email', '=', 'nobody@example.com']], ['name']);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([]);
    expect((await allEntries()).length).toBe(before);
  });

  it('counts only the records it returns, so a page past them tells nothing unaudited', async () => {
    const guesses = ['ada.filter@example.com', 'bob.filter@example.com', 'nobody@example.com'];
    const past = await t.request(
      'GET',
      `${CUSTOMERS}?${new URLSearchParams({ filters: JSON.stringify([['email', 'in', guesses]]), fields: '["name"]', limit_start: '50' })}`,
      { headers: { authorization: salesManager } },
    );
    expect(past.status).toBe(200);
    expect(await past.json()).toEqual({ data: [], total: 0 });
    expect((await allEntries()).length).toBe(before);

    const first = await t.request(
      'GET',
      `${CUSTOMERS}?${new URLSearchParams({ filters: JSON.stringify([['email', 'in', guesses]]), fields: '["name"]', limit_page_length: '1' })}`,
      { headers: { authorization: salesManager } },
    );
    const page = (await first.json()) as { data: unknown[]; total: number; total_is_lower_bound?: true };
    expect([page.data.length, page.total, page.total_is_lower_bound]).toEqual([1, 1, true]);
    expect((await allEntries()).length).toBe(before + 1);
  });

  it('counts every match of a filter on plain fields', async () => {
    const res = await t.request(
      'GET',
      `${CUSTOMERS}?${new URLSearchParams({ filters: JSON.stringify([['customer_name', 'like', '% Filter']]), fields: '["name"]', limit_start: '50' })}`,
      { headers: { authorization: salesManager } },
    );
    expect(await res.json()).toEqual({ data: [], total: 2 });
  });

  it('adds nothing for a filter and projection on plain fields only', async () => {
    const res = await listed([['customer_name', '=', 'Ada Filter']], ['name', 'customer_name']);
    expect(res.status).toBe(200);
    expect((await allEntries()).length).toBe(before);
  });
});

describe('a CSV export filtered on a flagged field', () => {
  it('audits the field it tested for each row, though the columns leave it out', async () => {
    const before = (await allEntries()).length;
    const params = new URLSearchParams({
      filters: JSON.stringify([['email', '=', 'ada.filter@example.com']]),
      fields: JSON.stringify(['customer_name']),
    });
    const res = await t.request('GET', `${CUSTOMERS}/export.csv?${params}`, {
      headers: { authorization: salesManager },
    });
    expect(res.status).toBe(200);
    const csv = await res.text();
    expect(csv).toContain('Ada Filter');
    expect(csv).not.toContain('ada.filter@example.com');
    const added = (await allEntries()).slice(before);
    expect(added.map((e) => [e.record, e.fields, e.route])).toEqual([[ada, ['email'], 'list']]);
  });

  it('sends X-Total-Count only when its first page holds every row', async () => {
    const exported = (filters: unknown) =>
      t.request(
        'GET',
        `${CUSTOMERS}/export.csv?${new URLSearchParams({ filters: JSON.stringify(filters) })}`,
        {
          headers: { authorization: salesManager },
        },
      );
    const tested = await exported([['email', '!=', 'nobody@example.com']]);
    expect(tested.status).toBe(200);
    expect(tested.headers.get('x-total-count')).toBe(String(await customers()));
    await tested.text();
    const plain = await exported([['customer_name', 'like', '%']]);
    expect(plain.headers.get('x-total-count')).toBe(String(await customers()));
    await plain.text();
  });
});

/** How many customers the store holds. */
async function customers(): Promise<number> {
  const crm = t.ctx.doctypes.get('crm.Customer')!;
  return (await t.ctx.records.list(crm, { filters: [], start: 0, pageLength: 1, orderBy: [] })).total;
}
