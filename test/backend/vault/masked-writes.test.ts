/**
 * A writer who gets personal data masked changes a record without the service decrypting any of it
 * (docs/security.md#who-can-decrypt-what-where): a PUT that leaves a masked field alone keeps its stored
 * ciphertext and blind index byte for byte, a PUT that sends a new value replaces only that one, and a
 * DELETE opens nothing. Every decryption is counted at the cipher. On PGlite and on a PostgreSQL server,
 * through the one-statement write and through the transaction an `Idempotency-Key` takes.
 */
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { blindIndexKey } from '../../../backend/vault/blind-index';
import { FieldCipher } from '../../../backend/vault/field-cipher';
import { PII_MASK } from '../../../src/protocol';
import { type PostgresHandle, startPostgres } from '../../faults/helpers/postgres-server';
import { appFolder } from '../../helpers/app-folder';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

const CUSTOMERS = '/api/resource/crm.Customer';

interface Stored {
  email: string | null;
  email_index: string | null;
  phone: string | null;
  customer_name: string;
}

describe.each(['PGlite', 'PostgreSQL'] as const)('on %s', (engine) => {
  let server: PostgresHandle | undefined;
  let db: Database;
  let t: TestApp;
  let salesUser: string;
  let cleaner: string;

  beforeAll(async () => {
    if (engine === 'PostgreSQL') server = await startPostgres();
    db = await openDatabase(server ? { databaseUrl: server.url } : { memory: true });
    t = await createTestApp({ database: db });
    salesUser = await userWithRoles(t.ctx, 'masked-writer', ['Sales User']);
    // A role that may delete customers but not read their personal data.
    const { rules } = (
      (await (await t.request('GET', '/api/permissions/crm.Customer')).json()) as {
        data: { rules: object[] };
      }
    ).data;
    const granted = await t.request('PUT', '/api/permissions/crm.Customer', {
      body: { rules: [...rules, { role: 'Customer Cleaner', read: true, delete: true }] },
    });
    expect(granted.status).toBe(200);
    cleaner = await userWithRoles(t.ctx, 'masked-cleaner', ['Customer Cleaner']);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await db?.close();
    await server?.dispose();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function customer(label: string): Promise<string> {
    const res = await t.request('POST', CUSTOMERS, {
      body: { customer_name: label, email: `${label}@example.com`, phone: '+44 20 7946 0000' },
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { name: string } }).data.name;
  }

  async function stored(name: string): Promise<Stored> {
    const { rows } = await db.query<Stored>(
      `SELECT data->>'email' AS email, data->>'${blindIndexKey('email')}' AS email_index,
              data->>'phone' AS phone, data->>'customer_name' AS customer_name
         FROM records WHERE doctype = 'crm.Customer' AND name = $1`,
      [name],
    );
    return rows[0]!;
  }

  async function asAdministrator(name: string): Promise<Record<string, unknown>> {
    const res = await t.request('GET', `${CUSTOMERS}/${name}`);
    return ((await res.json()) as { data: Record<string, unknown> }).data;
  }

  for (const idempotent of [false, true]) {
    const how = idempotent ? 'with an Idempotency-Key' : 'in one statement';
    it(`keeps, ${how}, the masked values a PUT leaves alone as stored, opening none`, async () => {
      const name = await customer(`kept-${engine}-${idempotent}`.toLowerCase());
      const before = await stored(name);
      const decrypt = vi.spyOn(FieldCipher.prototype, 'decrypt');
      const res = await t.request('PUT', `${CUSTOMERS}/${name}`, {
        headers: {
          authorization: salesUser,
          ...(idempotent ? { 'idempotency-key': `kept-${engine}` } : {}),
        },
        body: { customer_name: 'Renamed' },
      });
      expect(res.status).toBe(200);
      expect(decrypt).not.toHaveBeenCalled();
      const answer = (await res.json()) as { data: Record<string, unknown> };
      expect(answer.data).toMatchObject({ customer_name: 'Renamed', email: PII_MASK, phone: PII_MASK });
      decrypt.mockRestore();

      // The ciphertexts and the blind index are the ones stored before, byte for byte.
      const after = await stored(name);
      expect(after).toEqual({ ...before, customer_name: 'Renamed' });
      expect(await asAdministrator(name)).toMatchObject({
        email: `kept-${engine}-${idempotent}@example.com`.toLowerCase(),
        phone: '+44 20 7946 0000',
      });
      const filters = encodeURIComponent(
        JSON.stringify([['email', '=', `${before.customer_name}@example.com`]]),
      );
      const found = await t.request('GET', `${CUSTOMERS}?filters=${filters}`);
      expect(((await found.json()) as { data: { name: string }[] }).data.map((r) => r.name)).toEqual([name]);
      // The history names the one change, and no personal field.
      const history = await t.request('GET', `/api/history/crm.Customer/${name}`);
      const entries = (
        (await history.json()) as { data: Array<{ kind: string; changes?: { field: string }[] }> }
      ).data;
      const update = entries.find((e) => e.kind === 'update');
      expect(update?.changes?.map((c) => c.field)).toEqual(['customer_name']);
    });
  }

  it('replaces only the masked value a PUT sends, and opens none', async () => {
    const name = await customer(`replaced-${engine}`.toLowerCase());
    const before = await stored(name);
    const decrypt = vi.spyOn(FieldCipher.prototype, 'decrypt');
    const res = await t.request('PUT', `${CUSTOMERS}/${name}`, {
      headers: { authorization: salesUser },
      body: { email: 'new-address@example.com' },
    });
    expect(res.status).toBe(200);
    expect(decrypt).not.toHaveBeenCalled();
    decrypt.mockRestore();
    const after = await stored(name);
    expect(after.phone).toBe(before.phone);
    expect(after.email).not.toBe(before.email);
    expect(after.email_index).not.toBe(before.email_index);
    expect(await asAdministrator(name)).toMatchObject({
      email: 'new-address@example.com',
      phone: '+44 20 7946 0000',
    });
  });

  it('deletes a record, answering it masked, without opening any of its values', async () => {
    const name = await customer(`deleted-${engine}`.toLowerCase());
    const decrypt = vi.spyOn(FieldCipher.prototype, 'decrypt');
    const res = await t.request('DELETE', `${CUSTOMERS}/${name}`, { headers: { authorization: cleaner } });
    expect(res.status).toBe(200);
    expect(decrypt).not.toHaveBeenCalled();
    const answer = (await res.json()) as { data: Record<string, unknown> };
    expect(answer.data).toMatchObject({ name, email: PII_MASK, phone: PII_MASK });
    expect((await t.request('GET', `${CUSTOMERS}/${name}`)).status).toBe(404);
  });
});

// A model that checks the record as a whole may look at any field: zod cannot validate it with fields left
// out, so such a record is validated whole, as stored (its values opened in the process, as before).
describe('a DocType whose model refines the whole record', () => {
  let dir: string;
  let t: TestApp;
  let writer: string;

  beforeAll(async () => {
    dir = appFolder(
      'refined',
      'defineApp, defineDocType, z',
      `const Contact = defineDocType({
  name: 'refined.Contact', label: 'Contact', titleField: 'full_name', namePrefix: 'CON',
  model: z.object({
    full_name: z.string().min(1).max(140).meta({ label: 'Full Name' }),
    email: z.email().max(254).meta({ label: 'Email', pii: true }).optional(),
    phone: z.string().max(40).meta({ label: 'Phone', pii: true }).optional(),
  }).refine((c) => c.email !== undefined || c.phone !== undefined, { message: 'An email or a phone is needed.' }),
});
export default defineApp({
  name: 'refined', label: 'Refined', doctypes: [Contact],
  permissions: { [Contact.name]: [{ role: 'Writer', read: true, create: true, write: true }] },
});
`,
    );
    t = await createTestApp({ config: { apps: [dir] } });
    writer = await userWithRoles(t.ctx, 'refined-writer', ['Writer']);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('still updates, the refinement seeing the stored values, and keeps what was not sent', async () => {
    const created = await t.request('POST', '/api/resource/refined.Contact', {
      body: { full_name: 'Ada', email: 'ada@example.com' },
    });
    expect(created.status).toBe(201);
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    const res = await t.request('PUT', `/api/resource/refined.Contact/${name}`, {
      headers: { authorization: writer },
      body: { full_name: 'Ada Lovelace' },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Record<string, unknown> }).data).toMatchObject({
      full_name: 'Ada Lovelace',
      email: PII_MASK,
    });
    const read = await t.request('GET', `/api/resource/refined.Contact/${name}`);
    expect(((await read.json()) as { data: Record<string, unknown> }).data.email).toBe('ada@example.com');
    // The refinement still holds against what is stored: clearing the only contact is refused.
    const cleared = await t.request('PUT', `/api/resource/refined.Contact/${name}`, {
      headers: { authorization: writer },
      body: { email: null },
    });
    expect(cleared.status).toBe(422);
  });
});
