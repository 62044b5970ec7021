import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { databaseIdentity } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { FieldCipher, isCiphertext, kekIdOf } from '../../../backend/vault/field-cipher';
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
      onProgress: (p) => progress.push(`${p.doctype} ${p.checked} ${p.rewrapped} ${p.defined}`),
    });
    expect(rewritten).toBe(1);
    expect(progress).toContain('crm.Customer 1 1 true');

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

  it('rewraps the sealed values of a DocType the configuration does not name, so the new key alone reads them', async () => {
    // A database of its own: every value in it is under the keys below.
    const t = await createTestApp();
    onTestFinished(() => t.close());
    const keys = await openVaultKeys(t.ctx.db, kekSources('', {}, databaseIdentity(t.ctx.db)));
    const before = { key: randomBytes(32), id: 'feedfacecafe000a' };
    const after = { key: randomBytes(32), id: 'feedfacecafe000b' };
    const binding = (field: string) => ({ doctype: 'clinic.Patient', record: 'PAT-00001', field });
    // Written under `before` by a server given an app this configuration leaves out (`m serve --app <dir>`).
    const old = new FieldCipher(before);
    await t.ctx.db.query(
      `INSERT INTO records (doctype, name, data) VALUES ('clinic.Patient', 'PAT-00001', $1::jsonb)`,
      [
        JSON.stringify({
          full_name: 'Ada',
          ssn: old.encrypt('123-45-6789', binding('ssn')),
          notes: old.encrypt('allergic', binding('notes')),
          ward: 'B',
        }),
      ],
    );
    // The rotation: `after` wraps, `before` still opens.
    const rotating = { ...keys, cipher: new FieldCipher(after, [before]) };
    const progress: string[] = [];
    const defined = new Map<string, boolean>();
    await rewrapRecords(t.ctx.db, rotating, t.ctx.doctypes.list(), {
      onProgress: (p) => {
        progress.push(`${p.doctype} ${p.checked} ${p.rewrapped}`);
        defined.set(p.doctype, p.defined);
      },
    });
    expect(progress).toContain('clinic.Patient 1 1');
    // Reported as walked without its definition, so the CLI does not claim its values in clear were looked for.
    expect(defined.get('clinic.Patient')).toBe(false);

    const { rows } = await t.ctx.db.query<{ data: Record<string, unknown> }>(
      "SELECT data FROM records WHERE doctype = 'clinic.Patient' AND name = 'PAT-00001'",
    );
    const data = rows[0]!.data;
    expect([kekIdOf(data.ssn), kekIdOf(data.notes)]).toEqual([after.id, after.id]);
    expect([data.full_name, data.ward]).toEqual(['Ada', 'B']);
    const alone = new FieldCipher(after);
    expect(alone.decrypt(data.ssn as string, binding('ssn'))).toBe('123-45-6789');
    expect(alone.decrypt(data.notes as string, binding('notes'))).toBe('allergic');
    expect(Object.values(data).filter(isCiphertext)).toHaveLength(2);
  });
});

describe('a rotation not finished', () => {
  const KEY_A = 'a'.repeat(40);
  const KEY_B = 'b'.repeat(40);
  const binding = (record: string) => ({ doctype: 'crm.Customer', record, field: 'email' });

  it('refuses a start without the previous key until m keys rewrap has moved every value off it', async () => {
    // A database of its own, written under A.
    const db = await openDatabase({ memory: true });
    onTestFinished(() => db.close());
    const underA = await openVaultKeys(db, kekSources('', { PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY_A }));
    for (const name of ['CUST-R1', 'CUST-R2']) {
      await db.query(`INSERT INTO records (doctype, name, data) VALUES ('crm.Customer', $1, $2::jsonb)`, [
        name,
        JSON.stringify({
          customer_name: name,
          email: underA.cipher.encrypt(`${name}@example.com`, binding(name)),
        }),
      ]);
    }
    // A server (or a rewrap killed before its first batch) started with both keys hands the index key to B.
    const rotating = {
      PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY_B,
      PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY: KEY_A,
    };
    const both = await openVaultKeys(db, kekSources('', rotating));
    expect(both.cipher.kekId).not.toBe(underA.cipher.kekId);

    // Dropping A now would leave both records unreadable: refused, naming A's id and what to do.
    for (const env of [
      { PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY_B },
      { ...rotating, PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY: 'x'.repeat(40) },
    ]) {
      const opened = openVaultKeys(db, kekSources('', env));
      await expect(opened).rejects.toMatchObject({ code: 'config_invalid' });
      await expect(opened).rejects.toThrow(underA.cipher.kekId);
      await expect(opened).rejects.toThrow('m keys rewrap');
    }
    // Nor may another rotation begin (B to C) before this one ends: only one previous key can be given, so
    // the values under A would be left where nothing opens them. The index key stays under B.
    const onward = openVaultKeys(
      db,
      kekSources('', {
        PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: 'c'.repeat(40),
        PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY: KEY_B,
      }),
    );
    await expect(onward).rejects.toThrow(`still under key-encryption key ${underA.cipher.kekId}`);
    await expect(onward).rejects.toThrow('Finish that rotation first');
    const { rows: index } = await db.query<{ kek_id: string }>('SELECT kek_id FROM vault_keys');
    expect(index.map((r) => r.kek_id)).toEqual([both.cipher.kekId]);

    // A rewrap given a wrong previous key names the key a value needs (exit 78), not a damaged value.
    const wrong = { ...both, cipher: new FieldCipher({ key: randomBytes(32), id: both.cipher.kekId }) };
    await expect(rewrapRecords(db, wrong, [])).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringContaining(underA.cipher.kekId),
    });

    expect(await rewrapRecords(db, both, [])).toBe(2);
    const underB = await openVaultKeys(db, kekSources('', { PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY_B }));
    const { rows } = await db.query<{ name: string; data: { email: string } }>(
      "SELECT name, data FROM records WHERE doctype = 'crm.Customer' AND name LIKE 'CUST-R%' ORDER BY name",
    );
    expect(rows.map((r) => underB.cipher.decrypt(r.data.email, binding(r.name)))).toEqual([
      'CUST-R1@example.com',
      'CUST-R2@example.com',
    ]);
  });
});
