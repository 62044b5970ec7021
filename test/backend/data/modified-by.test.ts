/**
 * `modified_by` on the data API against the real MONOLITH app and its database: a create and each update
 * store the caller as the record's last author (an import, the user who started it), list and get answers
 * carry it (and a list can ask for it as a field, filter and sort on it), a client cannot set it, and no
 * DocType may declare a field of its name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocTypeRegistry } from '../../../backend/doctypes/registry';
import { defineDocType, z } from '../../../src/app';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let sally: string;
beforeAll(async () => {
  t = await createTestApp();
  sally = await userWithRoles(t.ctx, 'sally', ['Sales User']);
});
afterAll(async () => {
  await t?.close();
});

interface Rec {
  name: string;
  modified_by?: string;
  [field: string]: unknown;
}
const data = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const storedAuthor = async (name: string) =>
  (
    await t.ctx.db.query<{ modified_by: string | null }>(
      "SELECT modified_by FROM records WHERE doctype = 'crm.Customer' AND name = $1",
      [name],
    )
  ).rows[0]?.modified_by;

describe('modified_by', () => {
  it('is the caller of the create, then of each update, in get and list answers', async () => {
    const created = await t.request('POST', '/api/resource/crm.Customer', {
      body: { customer_name: 'Grace Hopper', modified_by: 'someone else' },
    });
    expect(created.status).toBe(201);
    const record = await data<Rec>(created);
    expect(record.modified_by).toBe('Administrator');
    expect(await storedAuthor(record.name)).toBe('Administrator');

    const updated = await t.request('PUT', `/api/resource/crm.Customer/${record.name}`, {
      headers: { authorization: sally },
      body: { status: 'Prospect', modified_by: 'someone else' },
    });
    expect(updated.status).toBe(200);
    expect((await data<Rec>(updated)).modified_by).toBe('sally');
    expect(await storedAuthor(record.name)).toBe('sally');

    const got = await data<Rec>(await t.request('GET', `/api/resource/crm.Customer/${record.name}`));
    expect(got.modified_by).toBe('sally');
    // Not one of the DocType's own fields: the body's value was ignored, not stored among them.
    const row = await t.ctx.db.query<{ data: Record<string, unknown> }>(
      "SELECT data FROM records WHERE doctype = 'crm.Customer' AND name = $1",
      [record.name],
    );
    expect(row.rows[0]?.data).not.toHaveProperty('modified_by');

    const listed = await data<Rec[]>(
      await t.request(
        'GET',
        `/api/resource/crm.Customer?${new URLSearchParams({
          fields: JSON.stringify(['name', 'modified_by']),
          filters: JSON.stringify([['modified_by', '=', 'sally']]),
          order_by: 'modified_by asc',
        })}`,
      ),
    );
    expect(listed).toEqual([{ name: record.name, modified_by: 'sally' }]);
  });

  it('is the user who started an import, for each record it creates', async () => {
    const res = await t.request('POST', '/api/import/crm.Customer', {
      headers: { authorization: sally },
      body: { csv: 'Customer Name\r\nImported by Sally\r\n' },
    });
    expect(res.status).toBe(200);
    const listed = await data<Rec[]>(
      await t.request(
        'GET',
        `/api/resource/crm.Customer?${new URLSearchParams({
          filters: JSON.stringify([['customer_name', '=', 'Imported by Sally']]),
        })}`,
      ),
    );
    expect(listed.map((r) => r.modified_by)).toEqual(['sally']);
  });

  it('may not be declared by a DocType', () => {
    const Bad = defineDocType({
      name: 'bad.Note',
      label: 'Note',
      titleField: 'modified_by',
      namePrefix: 'NOTE',
      model: z.object({ modified_by: z.string().meta({ label: 'By' }) }),
    });
    expect(() => createDocTypeRegistry([{ name: 'bad', doctypes: [Bad] }])).toThrow(
      'DocType bad.Note declares the reserved field "modified_by"',
    );
  });
});
