/**
 * The audit log API as the Desk reads it: newest first on request, and the chain checked on the server
 * (`GET /api/audit/verify`), as `m audit verify` checks it, for System Managers only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, ChainVerdict } from '../../../backend/audit/chain';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let salesManager: string;
let ada: string;

const CUSTOMERS = '/api/resource/crm.Customer';

async function json<T>(res: Response, status = 200): Promise<T> {
  expect(res.status).toBe(status);
  return (await res.json()) as T;
}

beforeAll(async () => {
  t = await createTestApp();
  salesManager = await userWithRoles(t.ctx, 'audit-api-manager', ['Sales Manager']);
  const created = await t.request('POST', CUSTOMERS, {
    body: { customer_name: 'Ada', email: 'ada.audit-api@example.com' },
  });
  ada = (await json<{ data: { name: string } }>(created, 201)).data.name;
  for (let i = 0; i < 3; i++) {
    expect(
      (await t.request('GET', `${CUSTOMERS}/${ada}`, { headers: { authorization: salesManager } })).status,
    ).toBe(200);
  }
});
afterAll(() => t.close());

describe('GET /api/audit?order=newest', () => {
  it('pages the entries newest first, the total counted over all of them', async () => {
    const oldest = await json<{ data: AuditEntry[]; total: number }>(
      await t.request('GET', `/api/audit?record=${ada}`),
    );
    const page = await json<{ data: AuditEntry[]; total: number }>(
      await t.request('GET', `/api/audit?record=${ada}&order=newest&limit_page_length=2`),
    );
    expect(page.total).toBe(oldest.total);
    expect(page.data.map((e) => e.seq)).toEqual(
      oldest.data
        .map((e) => e.seq)
        .reverse()
        .slice(0, 2),
    );
    expect(page.data[0]).toMatchObject({
      user: 'audit-api-manager',
      record: ada,
      fields: ['email', 'phone'],
    });
  });

  it('refuses an order it does not know with 400 invalid_query', async () => {
    const body = await json<{ error: { code: string } }>(await t.request('GET', '/api/audit?order=up'), 400);
    expect(body.error.code).toBe('invalid_query');
  });
});

describe('GET /api/audit/verify', () => {
  it('refuses anyone but a System Manager with 403 forbidden', async () => {
    const res = await t.request('GET', '/api/audit/verify', { headers: { authorization: salesManager } });
    expect((await json<{ error: { code: string } }>(res, 403)).error.code).toBe('forbidden');
  });

  it('answers an intact chain with its length and head', async () => {
    const all = await t.ctx.audit!.list({ limit: 1000 });
    const { data } = await json<{ data: ChainVerdict }>(await t.request('GET', '/api/audit/verify'));
    const last = all.data[all.data.length - 1]!;
    expect(data).toEqual({ ok: true, entries: all.total, head: { seq: last.seq, hash: last.hash } });
  });

  it('names the first entry changed after it was written', async () => {
    const { data: entries } = await t.ctx.audit!.list({ record: ada, limit: 1000 });
    const victim = entries[1]!.seq;
    await t.ctx.db.exec('ALTER TABLE audit_log DISABLE TRIGGER USER');
    try {
      await t.ctx.db.query(`UPDATE audit_log SET "user" = 'nobody' WHERE seq = $1`, [victim]);
    } finally {
      await t.ctx.db.exec('ALTER TABLE audit_log ENABLE TRIGGER USER');
    }
    const { data } = await json<{ data: ChainVerdict }>(await t.request('GET', '/api/audit/verify'));
    expect(data).toMatchObject({
      ok: false,
      seq: victim,
      problem: `entry ${victim} was changed after it was written`,
    });
  });
});
