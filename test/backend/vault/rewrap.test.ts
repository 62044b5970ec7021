import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseIdentity } from '../../../backend/db/database';
import { rewrapRecords } from '../../../backend/vault/rewrap';
import { kekSources, openVaultKeys } from '../../../backend/vault/vault-keys';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('rewrapRecords', () => {
  it('encrypts values stored in clear before encryption at rest, and gives them a blind index', async () => {
    await t.ctx.db.query(
      `INSERT INTO records (doctype, name, data) VALUES ('crm.Customer', 'CUST-LEGACY', $1::jsonb)`,
      [JSON.stringify({ customer_name: 'Legacy', email: 'legacy@example.com', status: 'Active' })],
    );
    const before = await t.request('GET', '/api/resource/crm.Customer/CUST-LEGACY');
    expect(((await before.json()) as { data: { email: string } }).data.email).toBe('legacy@example.com');

    // The app's own in-memory key: the database under the measuring wrapper names it.
    const keys = await openVaultKeys(t.ctx.db, kekSources('', {}, databaseIdentity(t.ctx.db)));
    const progress: string[] = [];
    const rewritten = await rewrapRecords(t.ctx.db, keys, t.ctx.doctypes.list(), {
      batch: 1,
      onProgress: (p) => progress.push(`${p.doctype} ${p.checked} ${p.rewrapped}`),
    });
    expect(rewritten).toBe(1);
    expect(progress).toContain('crm.Customer 1 1');

    const { rows } = await t.ctx.db.query<{ data: Record<string, unknown> }>(
      "SELECT data FROM records WHERE doctype = 'crm.Customer' AND name = 'CUST-LEGACY'",
    );
    expect(JSON.stringify(rows[0]!.data)).not.toContain('legacy@example.com');
    const filters = encodeURIComponent('[["email","=","legacy@example.com"]]');
    const found = await t.request('GET', `/api/resource/crm.Customer?filters=${filters}`);
    expect(((await found.json()) as { data: { name: string; email: string }[] }).data).toMatchObject([
      { name: 'CUST-LEGACY', email: 'legacy@example.com' },
    ]);
    expect(await rewrapRecords(t.ctx.db, keys, t.ctx.doctypes.list())).toBe(0);
  });
});
