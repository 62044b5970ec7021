import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../backend/audit/audit-log';
import type { AuditEntry } from '../../../backend/audit/chain';
import { verifyChain } from '../../../backend/audit/chain';
import { openDatabase } from '../../../backend/db/open-database';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let salesUser: string;
let salesManager: string;
let ada: string;
let bob: string;

const CUSTOMERS = '/api/resource/crm.Customer';

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', CUSTOMERS, { body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { name: string } }).data.name;
}

async function allEntries(): Promise<AuditEntry[]> {
  return (await t.ctx.audit!.list({ limit: 1000 })).data;
}

/** The audit table without its append-only triggers, as an operator with the database's owner role has it. */
async function asOwner(sql: string, params: unknown[] = []): Promise<void> {
  await t.ctx.db.exec('ALTER TABLE audit_log DISABLE TRIGGER USER');
  try {
    await t.ctx.db.query(sql, params);
  } finally {
    await t.ctx.db.exec('ALTER TABLE audit_log ENABLE TRIGGER USER');
  }
}

beforeAll(async () => {
  t = await createTestApp();
  salesUser = await userWithRoles(t.ctx, 'audit-sales', ['Sales User']);
  salesManager = await userWithRoles(t.ctx, 'audit-manager', ['Sales Manager']);
  ada = await create({ customer_name: 'Ada', email: 'ada.audit@example.com' });
  bob = await create({ customer_name: 'Bob', email: 'bob.audit@example.com' });
});
afterAll(() => t.close());

describe('reveals are audited', () => {
  let before: number;
  beforeEach(async () => {
    before = (await allEntries()).length;
  });

  it('appends who, when, what, where and from where for a read returning personal data', async () => {
    const res = await t.request('GET', `${CUSTOMERS}/${ada}`, { headers: { authorization: salesManager } });
    expect(res.status).toBe(200);
    const added = (await allEntries()).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      user: 'audit-manager',
      via: 'api_key',
      doctype: 'crm.Customer',
      record: ada,
      fields: ['email', 'phone'],
      route: 'get',
    });
    expect(Date.now() - Date.parse(added[0]!.at)).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(added)).not.toContain('ada.audit@example.com');
  });

  it('appends one entry per record of a list', async () => {
    const res = await t.request(
      'GET',
      `${CUSTOMERS}?filters=${encodeURIComponent('[["customer_name","in",["Ada","Bob"]]]')}`,
    );
    expect(res.status).toBe(200);
    const added = (await allEntries()).slice(before);
    expect(added.map((e) => [e.record, e.route, e.user]).sort()).toEqual(
      [
        [ada, 'list', 'Administrator'],
        [bob, 'list', 'Administrator'],
      ].sort(),
    );
  });

  it('adds nothing for a reader who gets the mask', async () => {
    const one = await t.request('GET', `${CUSTOMERS}/${ada}`, { headers: { authorization: salesUser } });
    const many = await t.request('GET', CUSTOMERS, { headers: { authorization: salesUser } });
    expect([one.status, many.status]).toEqual([200, 200]);
    expect((await allEntries()).length).toBe(before);
  });

  it('adds nothing for a record that does not exist, and the next reveal follows the last entry', async () => {
    const res = await t.request('GET', `${CUSTOMERS}/CUST-99999`, {
      headers: { authorization: salesManager },
    });
    expect(res.status).toBe(404);
    expect((await allEntries()).length).toBe(before);
    const last = (await allEntries()).at(-1)!;
    expect(
      (await t.request('GET', `${CUSTOMERS}/${ada}`, { headers: { authorization: salesManager } })).status,
    ).toBe(200);
    expect((await allEntries()).slice(before)).toMatchObject([{ seq: last.seq + 1, prev_hash: last.hash }]);
  });

  it('keeps the log append-only in the database', async () => {
    await expect(t.ctx.db.query('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
    await expect(t.ctx.db.query(`UPDATE audit_log SET "user" = 'someone'`)).rejects.toThrow(/append-only/);
    expect((await allEntries()).length).toBe(before);
  });
});

describe('GET /api/audit', () => {
  it('lists entries to a System Manager, filtered by DocType, record and user', async () => {
    await t.request('GET', `${CUSTOMERS}/${bob}`, { headers: { authorization: salesManager } });
    const res = await t.request('GET', `/api/audit?doctype=crm.Customer&record=${bob}&user=audit-manager`);
    expect(res.status).toBe(200);
    const page = (await res.json()) as { data: AuditEntry[]; total: number };
    expect(page.total).toBeGreaterThanOrEqual(1);
    expect(page.data.every((e) => e.record === bob && e.user === 'audit-manager')).toBe(true);
    expect(page.data[0]).toHaveProperty('hash');
  });

  it('refuses anyone else with 403 forbidden', async () => {
    const res = await t.request('GET', '/api/audit', { headers: { authorization: salesManager } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });
});

describe('the hash chain', () => {
  it('holds over every entry written', async () => {
    await t.request('GET', `${CUSTOMERS}/${ada}`);
    const verdict = await verifyChain(t.ctx.audit!.entries(2));
    expect(verdict).toMatchObject({ ok: true, entries: (await allEntries()).length });
  });

  it('stays one chain when another process sharing the database appends in between', async () => {
    const otherProcess = new AuditLog(t.ctx.db);
    await t.request('GET', `${CUSTOMERS}/${ada}`);
    const [theirs] = await otherProcess.append([
      {
        at: new Date().toISOString(),
        user: 'elsewhere',
        via: 'session',
        doctype: 'crm.Customer',
        record: bob,
        fields: ['email'],
        route: 'get',
        client_address: null,
      },
    ]);
    await t.request('GET', `${CUSTOMERS}/${ada}`);
    const entries = await allEntries();
    const next = entries.find((e) => e.seq === theirs!.seq + 1)!;
    expect(next).toMatchObject({ record: ada, prev_hash: theirs!.hash });
    expect(await verifyChain(t.ctx.audit!.entries())).toMatchObject({ ok: true });
  });

  it('goes on after a restart from the head stored, and verifies as one chain', async () => {
    const database = await openDatabase({ memory: true });
    try {
      const first = await createTestApp({ database });
      const created = await first.request('POST', CUSTOMERS, {
        body: { customer_name: 'Restart', email: 'r@example.com' },
      });
      const name = ((await created.json()) as { data: { name: string } }).data.name;
      for (let i = 0; i < 2; i++)
        expect((await first.request('GET', `${CUSTOMERS}/${name}`)).status).toBe(200);
      await first.close();
      const second = await createTestApp({ database });
      try {
        for (let i = 0; i < 2; i++)
          expect((await second.request('GET', `${CUSTOMERS}/${name}`)).status).toBe(200);
        const res = await second.request('GET', '/api/audit/verify');
        expect(((await res.json()) as { data: unknown }).data).toMatchObject({ ok: true, entries: 4 });
      } finally {
        await second.close();
      }
    } finally {
      await database.close();
    }
  });

  it('names the entry after a removed one, and an edited one', async () => {
    for (let i = 0; i < 3; i++) await t.request('GET', `${CUSTOMERS}/${ada}`);
    const entries = await allEntries();
    const victim = entries[entries.length - 2]!.seq;
    await asOwner(`UPDATE audit_log SET "user" = 'nobody' WHERE seq = $1`, [victim]);
    expect(await verifyChain(t.ctx.audit!.entries())).toMatchObject({
      ok: false,
      seq: victim,
      problem: `entry ${victim} was changed after it was written`,
    });
    await asOwner('DELETE FROM audit_log WHERE seq = $1', [victim]);
    expect(await verifyChain(t.ctx.audit!.entries())).toMatchObject({
      ok: false,
      seq: victim,
      problem: `entry ${victim} is missing (the next one is ${victim + 1})`,
    });
  });
});

describe('what a read reveals is what it returned', () => {
  const projected = (fields: string[]) =>
    t.request(
      'GET',
      `${CUSTOMERS}?${new URLSearchParams({
        filters: JSON.stringify([['customer_name', '=', 'Ada']]),
        fields: JSON.stringify(fields),
      })}`,
    );

  it('adds nothing for a list projected to fields without personal data', async () => {
    const before = (await allEntries()).length;
    const res = await projected(['name', 'customer_name']);
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).not.toContain('ada.audit@example.com');
    expect((await allEntries()).length).toBe(before);
  });

  it('names only the flagged fields a projection returned', async () => {
    const before = (await allEntries()).length;
    expect((await projected(['customer_name', 'email'])).status).toBe(200);
    const added = (await allEntries()).slice(before);
    expect(added.map((e) => [e.record, e.fields])).toEqual([[ada, ['email']]]);
  });

  it('adds nothing for a global search, which returns names and titles only', async () => {
    const before = (await allEntries()).length;
    const res = await t.request('GET', '/api/search?q=Ada');
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain(ada);
    expect((await allEntries()).length).toBe(before);
  });
});
