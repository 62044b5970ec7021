/**
 * A write's answer reveals nothing the caller did not send (docs/permissions.md#reveals-are-audited): a POST
 * or PUT answers in clear only the flagged values its request carried, every other flagged field holding a
 * value as the mask named in `masked_fields`, and a DELETE masks them all. Such answers need no audit entry,
 * and none is added; a client that wants the values reads the record, which is audited.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../backend/audit/chain';
import { PII_MASK } from '../../../src/protocol';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let salesManager: string;
let salesUser: string;

const CUSTOMERS = '/api/resource/crm.Customer';

interface Answer {
  data: Record<string, unknown>;
  masked_fields?: string[];
}

async function allEntries(): Promise<AuditEntry[]> {
  return (await t.ctx.audit!.list({ limit: 1000 })).data;
}

/** A customer with both flagged fields set, created by Administrator. */
async function customer(label: string): Promise<string> {
  const res = await t.request('POST', CUSTOMERS, {
    body: { customer_name: label, email: `${label}@example.com`, phone: '+44 20 7946 0000' },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as Answer).data.name as string;
}

beforeAll(async () => {
  t = await createTestApp();
  salesManager = await userWithRoles(t.ctx, 'answers-manager', ['Sales Manager']);
  salesUser = await userWithRoles(t.ctx, 'answers-sales', ['Sales User']);
});
afterAll(() => t.close());

describe('the answer of a write', () => {
  let before: number;
  beforeEach(async () => {
    before = (await allEntries()).length;
  });

  it('masks, for a PUT, the flagged values its body did not carry, and adds no audit entry', async () => {
    const name = await customer('partial');
    before = (await allEntries()).length;
    const res = await t.request('PUT', `${CUSTOMERS}/${name}`, {
      headers: { authorization: salesManager },
      body: { status: 'Inactive' },
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(answer.data).toMatchObject({
      name,
      customer_name: 'partial',
      status: 'Inactive',
      email: PII_MASK,
      phone: PII_MASK,
    });
    expect(answer.masked_fields).toEqual(['email', 'phone']);
    expect(JSON.stringify(answer)).not.toContain('partial@example.com');
    expect((await allEntries()).length).toBe(before);
  });

  it('answers in clear the flagged values a PUT carried, as validated', async () => {
    const name = await customer('carried');
    before = (await allEntries()).length;
    const res = await t.request('PUT', `${CUSTOMERS}/${name}`, {
      headers: { authorization: salesManager },
      body: { email: 'changed@example.com' },
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(answer.data).toMatchObject({ email: 'changed@example.com', phone: PII_MASK });
    expect(answer.masked_fields).toEqual(['phone']);
    expect((await allEntries()).length).toBe(before);
  });

  it('keeps masking for a writer without read_pii what they get masked, sent or not', async () => {
    const name = await customer('masked-writer');
    const res = await t.request('PUT', `${CUSTOMERS}/${name}`, {
      headers: { authorization: salesUser },
      body: { email: 'guess@example.com' },
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(answer.data).toMatchObject({ email: PII_MASK, phone: PII_MASK });
    expect(answer.masked_fields).toEqual(['email', 'phone']);
  });

  it('answers a POST with the values it carried, naming no field it left empty', async () => {
    const res = await t.request('POST', CUSTOMERS, {
      headers: { authorization: salesManager },
      body: { customer_name: 'Posted', email: 'posted@example.com' },
    });
    expect(res.status).toBe(201);
    const answer = (await res.json()) as Answer;
    expect(answer.data).toMatchObject({ customer_name: 'Posted', email: 'posted@example.com' });
    expect(answer.data).not.toHaveProperty('phone');
    expect(answer).not.toHaveProperty('masked_fields');
    expect((await allEntries()).length).toBe(before);
  });

  it('masks every flagged value of a DELETE answer, and adds no audit entry', async () => {
    const name = await customer('deleted');
    before = (await allEntries()).length;
    const res = await t.request('DELETE', `${CUSTOMERS}/${name}`, {
      headers: { authorization: salesManager },
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(answer.data).toMatchObject({ name, customer_name: 'deleted', email: PII_MASK, phone: PII_MASK });
    expect(answer.masked_fields).toEqual(['email', 'phone']);
    expect(JSON.stringify(answer)).not.toContain('deleted@example.com');
    expect((await allEntries()).length).toBe(before);
  });
});

describe('an idempotent retry of a PUT', () => {
  it('replays, after the caller lost read_pii, only what the request carried', async () => {
    const user = 'answers-retry';
    const authorization = await userWithRoles(t.ctx, user, ['Sales Manager']);
    const name = await customer('retried');
    const send = () =>
      t.request('PUT', `${CUSTOMERS}/${name}`, {
        headers: { authorization, 'idempotency-key': `retry-${name}` },
        body: { email: 'retried.new@example.com', status: 'Inactive' },
      });
    const first = await send();
    expect(first.status).toBe(200);
    const firstText = await first.text();
    await t.ctx.security.users.setRoles(user, ['Sales User']);
    const replay = await send();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const text = await replay.text();
    expect(text).toBe(firstText);
    const answer = JSON.parse(text) as Answer;
    expect(answer.data).toMatchObject({ email: 'retried.new@example.com', phone: PII_MASK });
    expect(text).not.toContain('7946');
  });
});
