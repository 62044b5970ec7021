/**
 * A reader without read_pii gets the mask without the server decrypting anything for them: the store is
 * told which fields the caller receives masked before it opens a record, so no data key is unwrapped.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FieldCipher } from '../../../backend/vault/field-cipher';
import { PII_MASK } from '../../../src/protocol';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let salesUser: string;
const names: string[] = [];
const N = 6;
const CUSTOMERS = '/api/resource/crm.Customer';
/** Only the customers of this file, whatever else the database holds. */
const OURS = `${CUSTOMERS}?${new URLSearchParams({
  filters: JSON.stringify([['customer_name', 'like', 'Unwrap %']]),
  limit_page_length: '100',
})}`;

beforeAll(async () => {
  t = await createTestApp();
  salesUser = await userWithRoles(t.ctx, 'unwrap-sales', ['Sales User']);
  for (let i = 0; i < N; i++) {
    const res = await t.request('POST', CUSTOMERS, {
      body: { customer_name: `Unwrap ${i}`, email: `unwrap${i}@example.com` },
    });
    expect(res.status).toBe(201);
    names.push(((await res.json()) as { data: { name: string } }).data.name);
  }
});
afterEach(() => vi.restoreAllMocks());
afterAll(() => t.close());

/** Counts the values the vault decrypts (each one a data key unwrapped by the key-encryption key). */
function countDecryptions() {
  return vi.spyOn(FieldCipher.prototype, 'decrypt');
}

async function emails(res: Response): Promise<unknown[]> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { email?: unknown }[] }).data.map((r) => r.email);
}

describe('masked reads decrypt nothing', () => {
  it(`lists ${N} records to a reader without read_pii with no decryption`, async () => {
    const decrypt = countDecryptions();
    const got = await emails(await t.request('GET', OURS, { headers: { authorization: salesUser } }));
    expect(got).toEqual(Array(N).fill(PII_MASK));
    expect(decrypt).toHaveBeenCalledTimes(0);
  });

  it('reads one record to a reader without read_pii with no decryption', async () => {
    const decrypt = countDecryptions();
    const res = await t.request('GET', `${CUSTOMERS}/${names[0]}`, { headers: { authorization: salesUser } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { email: unknown } }).data.email).toBe(PII_MASK);
    expect(decrypt).toHaveBeenCalledTimes(0);
  });

  it(`decrypts once per value for a reader with read_pii: ${N} for ${N} records`, async () => {
    const decrypt = countDecryptions();
    const got = await emails(await t.request('GET', OURS));
    expect(got.sort()).toEqual(names.map((_, i) => `unwrap${i}@example.com`).sort());
    expect(decrypt).toHaveBeenCalledTimes(N);
  });
});

describe('a masked page as the database returns it', () => {
  it('masks a value, keeps a missing one missing and a null one null, and carries no blind index', async () => {
    const customer = t.ctx.doctypes.get('crm.Customer')!;
    const none = await t.ctx.records.insert(customer, { customer_name: 'Unwrap none' });
    const empty = await t.ctx.records.insert(customer, { customer_name: 'Unwrap null', email: null });
    const res = await t.request('GET', OURS, { headers: { authorization: salesUser } });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { data: Record<string, unknown>[] };
    const byName = new Map(page.data.map((r) => [r.name, r]));
    expect(byName.get(names[0]!)).toMatchObject({ email: PII_MASK });
    expect(byName.get(none.name)).not.toHaveProperty('email');
    expect(byName.get(empty.name)).toHaveProperty('email', null);
    expect(JSON.stringify(page)).not.toContain('__bidx');
    expect(JSON.stringify(page)).not.toContain('enc1.');
  });

  it('tells each masked field apart: a value, a null and a missing one in the same record', async () => {
    const customer = t.ctx.doctypes.get('crm.Customer')!;
    const both = await t.ctx.records.insert(customer, {
      customer_name: 'Unwrap mixed',
      email: null,
      phone: '+44 20 7946 0000',
    });
    const res = await t.request('GET', OURS, { headers: { authorization: salesUser } });
    const byName = new Map(
      ((await res.json()) as { data: Record<string, unknown>[] }).data.map((r) => [r.name, r]),
    );
    expect(byName.get(both.name)).toMatchObject({ email: null, phone: PII_MASK });
    expect(byName.get(names[0]!)).toMatchObject({ email: PII_MASK });
    expect(byName.get(names[0]!)).not.toHaveProperty('phone');
  });

  it('is sent in ASCII, the mask written as JSON escapes that parse to the mask', async () => {
    for (const path of [OURS, `${CUSTOMERS}/${names[0]}`]) {
      const res = await t.request('GET', path, { headers: { authorization: salesUser } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const text = await res.text();
      expect(text).toMatch(/^[\x20-\x7e]*$/);
      expect(text).toContain(`"email":"${'\\u2022'.repeat(6)}"`);
      expect(JSON.stringify(JSON.parse(text))).toContain(`"email":"${PII_MASK}"`);
    }
  });

  it('masks a projected field the same way', async () => {
    const query = new URLSearchParams({
      filters: JSON.stringify([['customer_name', '=', 'Unwrap 1']]),
      fields: JSON.stringify(['email']),
    });
    const res = await t.request('GET', `${CUSTOMERS}?${query}`, { headers: { authorization: salesUser } });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { data: Record<string, unknown>[] };
    expect(page.data).toEqual([{ name: names[1], email: PII_MASK }]);
  });
});

describe('a masked page in any order', () => {
  it('is cut from the whole list in the order asked for', async () => {
    const pageOf = async (start: number) => {
      const query = new URLSearchParams({
        filters: JSON.stringify([['customer_name', 'like', 'Unwrap %']]),
        order_by: 'customer_name desc',
        limit_start: String(start),
        limit_page_length: '2',
      });
      const res = await t.request('GET', `${CUSTOMERS}?${query}`, { headers: { authorization: salesUser } });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { data: { customer_name: string; email?: unknown }[] };
      expect(
        page.data.filter((r) => r.email !== undefined && r.email !== null).every((r) => r.email === PII_MASK),
      ).toBe(true);
      return page.data.map((r) => r.customer_name);
    };
    const pages = [];
    for (let start = 0; start < N; start += 2) pages.push(...(await pageOf(start)));
    expect(pages).toHaveLength(N);
    expect(new Set(pages).size).toBe(N);
    expect(pages).toEqual([...pages].sort().reverse());
  });
});
