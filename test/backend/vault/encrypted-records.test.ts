import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PII_MASK } from '../../../src/protocol';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let salesUser: string;

const CUSTOMERS = '/api/resource/crm.Customer';

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', CUSTOMERS, { body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { name: string } }).data.name;
}

async function storedData(name: string): Promise<Record<string, unknown>> {
  const { rows } = await t.ctx.db.query<{ data: Record<string, unknown> }>(
    'SELECT data FROM records WHERE doctype = $1 AND name = $2',
    ['crm.Customer', name],
  );
  return rows[0]!.data;
}

const list = (params: Record<string, string>) =>
  t.request('GET', `${CUSTOMERS}?${new URLSearchParams(params)}`);

async function namesOf(res: Response): Promise<string[]> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { name: string }[] }).data.map((r) => r.name).sort();
}

beforeAll(async () => {
  t = await createTestApp();
  salesUser = await userWithRoles(t.ctx, 'vault-sales', ['Sales User']);
});
afterAll(() => t.close());

describe('personal data at rest', () => {
  it('stores flagged fields as ciphertext and reads them back in clear to a reader with read_pii', async () => {
    const name = await create({
      customer_name: 'Ada',
      email: 'ada.vault@example.com',
      phone: '+44 20 7946 0001',
    });
    const stored = await storedData(name);
    const text = JSON.stringify(stored);
    expect(text).not.toContain('ada.vault@example.com');
    expect(text).not.toContain('7946 0001');
    expect(stored.customer_name).toBe('Ada');
    expect(String(stored.email)).toMatch(/^enc1\./);
    expect(String(stored.email__bidx)).toMatch(/^[0-9a-f]{64}$/);

    const res = await t.request('GET', `${CUSTOMERS}/${name}`);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({ name, email: 'ada.vault@example.com', phone: '+44 20 7946 0001' });
    expect(data).not.toHaveProperty('email__bidx');
  });

  it('gives the mask to a reader without read_pii', async () => {
    const name = await create({ customer_name: 'Masked', email: 'masked@example.com' });
    const res = await t.request('GET', `${CUSTOMERS}/${name}`, { headers: { authorization: salesUser } });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).not.toContain('masked@example.com');
    expect(JSON.parse(body).data.email).toBe(PII_MASK);
  });

  it('re-encrypts on update and keeps the blind index in step with the value', async () => {
    const name = await create({ customer_name: 'Grace', email: 'grace.old@example.com' });
    const before = await storedData(name);
    const res = await t.request('PUT', `${CUSTOMERS}/${name}`, { body: { email: 'grace.new@example.com' } });
    expect(res.status).toBe(200);
    const after = await storedData(name);
    expect(after.email).not.toBe(before.email);
    expect(JSON.stringify(after)).not.toContain('grace.new@example.com');
    expect(await namesOf(await list({ filters: '[["email","=","grace.old@example.com"]]' }))).toEqual([]);
    expect(await namesOf(await list({ filters: '[["email","=","grace.new@example.com"]]' }))).toEqual([name]);
  });

  it('refuses a ciphertext copied into another record or another field, showing nothing', async () => {
    const from = await create({ customer_name: 'Source', email: 'source@example.com', phone: '+1 555 0100' });
    const to = await create({ customer_name: 'Target', email: 'target@example.com' });
    const source = await storedData(from);
    await t.ctx.db.query(
      `UPDATE records SET data = jsonb_set(data, '{email}', $3::jsonb) WHERE doctype = $1 AND name = $2`,
      ['crm.Customer', to, JSON.stringify(source.email)],
    );
    const moved = await t.request('GET', `${CUSTOMERS}/${to}`);
    expect(moved.status).toBe(500);
    const body = await moved.text();
    expect(JSON.parse(body).error.code).toBe('integrity_failed');
    expect(body).not.toContain('source@example.com');
    // The refused read was an attempt to reveal: its audit entry, written with the read, stays.
    const { data: audited } = await t.ctx.audit!.list({ record: to, limit: 10 });
    expect(audited.map((e) => e.route)).toEqual(['get']);

    await t.ctx.db.query(
      `UPDATE records SET data = jsonb_set(data, '{phone}', $3::jsonb) WHERE doctype = $1 AND name = $2`,
      ['crm.Customer', from, JSON.stringify(source.email)],
    );
    const swapped = await t.request('GET', `${CUSTOMERS}/${from}`);
    expect(swapped.status).toBe(500);
    expect(((await swapped.json()) as { error: { code: string } }).error.code).toBe('integrity_failed');
    await t.ctx.db.query('DELETE FROM records WHERE doctype = $1 AND name = ANY($2)', [
      'crm.Customer',
      [from, to],
    ]);
  });

  it('answers a projection of a flagged field with the record name the value is bound to', async () => {
    const name = await create({ customer_name: 'Fields', email: 'fields@example.com' });
    const res = await list({ fields: '["email"]', filters: `[["email","=","fields@example.com"]]` });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([{ email: 'fields@example.com', name }]);
  });
});

describe('equality on flagged fields through the blind index', () => {
  let alan: string;
  let barbara: string;
  beforeAll(async () => {
    alan = await create({ customer_name: 'Alan', email: 'alan.bidx@example.com' });
    barbara = await create({ customer_name: 'Barbara', email: 'barbara.bidx@example.com' });
  });

  it('finds a record by exact value, ignoring case and surrounding spaces', async () => {
    expect(await namesOf(await list({ filters: '[["email","=","alan.bidx@example.com"]]' }))).toEqual([alan]);
    expect(await namesOf(await list({ filters: '[["email","="," ALAN.Bidx@Example.com "]]' }))).toEqual([
      alan,
    ]);
    expect(await namesOf(await list({ filters: '{"email":"barbara.bidx@example.com"}' }))).toEqual([barbara]);
  });

  it('answers in and != on a flagged field', async () => {
    const both = await list({
      filters: '[["email","in",["alan.bidx@example.com","barbara.bidx@example.com"]]]',
    });
    expect(await namesOf(both)).toEqual([alan, barbara].sort());
    const others = await namesOf(
      await list({
        filters: '[["email","!=","alan.bidx@example.com"],["customer_name","in",["Alan","Barbara"]]]',
      }),
    );
    expect(others).toEqual([barbara]);
  });

  it('keeps a database index on each blind index, which an equality filter can use', async () => {
    const { rows } = await t.ctx.db.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE tablename = 'records' AND indexdef LIKE '%email__bidx%'",
    );
    expect(rows.map((r) => r.indexdef)).toEqual([expect.stringContaining("doctype = 'crm.Customer'")]);
    await t.ctx.db.exec('SET enable_seqscan = off');
    try {
      const plan = await t.ctx.db.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN SELECT name FROM records WHERE doctype = 'crm.Customer' AND (data->>'email__bidx') = 'x'",
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/records_bidx_/);
    } finally {
      await t.ctx.db.exec('SET enable_seqscan = on');
    }
  });

  it('counts through the blind index (unique checks and app code use count)', async () => {
    expect(await t.ctx.records.count('crm.Customer', { email: 'alan.bidx@example.com' })).toBe(1);
    expect(await t.ctx.records.count('crm.Customer', { email: 'nobody@example.com' })).toBe(0);
  });

  it('refuses patterns, comparisons and sorting on a flagged field with field_encrypted', async () => {
    const refused: Record<string, string>[] = [
      { filters: '[["email","like","alan%"]]' },
      { filters: '[["email",">","a"]]' },
      { order_by: 'email asc' },
    ];
    for (const params of refused) {
      const res = await list(params);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('field_encrypted');
      expect(body.error.message).toContain('email');
    }
  });
});
