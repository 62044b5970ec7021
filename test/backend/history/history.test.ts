/**
 * A record's history and comments against the real MONOLITH app: every create, update and delete is stored
 * with its author and field changes (personal-data values never kept), `GET /api/history/...` is refused to
 * a user who may not read the DocType, and comments are added by readers and changed only by their author.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let salesUser: string;
let agent: string;
let clerk: string;
beforeAll(async () => {
  t = await createTestApp({ config: { apps: ['crm', 'stock', 'support'] } });
  salesUser = await userWithRoles(t.ctx, 'sally', ['Sales User']);
  agent = await userWithRoles(t.ctx, 'sam', ['Support Agent']);
  clerk = await userWithRoles(t.ctx, 'clerk', ['Stock User']);
});
afterAll(async () => {
  await t?.close();
});

const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;

interface Entry {
  kind: string;
  id: number;
  user: string;
  at: string;
  changes?: Array<{ field: string; old?: unknown; new?: unknown; hidden?: true }>;
  text?: string;
  edited?: string;
}

async function newCustomer(name: string, authorization?: string): Promise<string> {
  const res = await t.request('POST', '/api/resource/crm.Customer', {
    body: { customer_name: name, email: 'grace@example.com', status: 'Prospect' },
    ...(authorization ? { headers: { authorization } } : {}),
  });
  expect(res.status).toBe(201);
  return (await json<{ name: string }>(res)).name;
}

const history = (name: string, authorization?: string) =>
  t.request('GET', `/api/history/crm.Customer/${name}`, authorization ? { headers: { authorization } } : {});

describe('GET /api/history/:doctype/:name', () => {
  it('lists the create, each update and the delete with who made them and what changed', async () => {
    const name = await newCustomer('Grace');
    const update = await t.request('PUT', `/api/resource/crm.Customer/${name}`, {
      headers: { authorization: salesUser },
      body: { customer_name: 'Grace Hopper', status: 'Active' },
    });
    expect(update.status).toBe(200);
    await t.request('PUT', `/api/resource/crm.Customer/${name}`, { body: { email: 'ada@example.com' } });
    expect((await t.request('DELETE', `/api/resource/crm.Customer/${name}`)).status).toBe(200);

    const res = await history(name);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const entries = await json<Entry[]>(res);
    expect(entries.map((e) => [e.kind, e.user, e.changes])).toEqual([
      [
        'create',
        'Administrator',
        [
          { field: 'customer_name', new: 'Grace' },
          { field: 'email', hidden: true },
          { field: 'status', new: 'Prospect' },
        ],
      ],
      [
        'update',
        'sally',
        [
          { field: 'customer_name', old: 'Grace', new: 'Grace Hopper' },
          { field: 'status', old: 'Prospect', new: 'Active' },
        ],
      ],
      ['update', 'Administrator', [{ field: 'email', hidden: true }]],
      ['delete', 'Administrator', []],
    ]);
    expect(entries.every((e) => !Number.isNaN(Date.parse(e.at)))).toBe(true);
  });

  it('never stores the values of personal-data fields', async () => {
    const name = await newCustomer('Private Person');
    const { rows } = await t.ctx.db.query<{ changes: unknown }>(
      'SELECT changes FROM record_history WHERE doctype = $1 AND name = $2',
      ['crm.Customer', name],
    );
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0]!.changes)).not.toContain('grace@example.com');
  });

  it('is refused (403 forbidden) to a user who may not read the DocType, and 404 for an unknown one', async () => {
    const name = await newCustomer('Hidden');
    const refused = await history(name, clerk);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect((await history(name, agent)).status).toBe(200);
    const unknown = await t.request('GET', '/api/history/crm.Nothing/X');
    expect(unknown.status).toBe(404);
    expect((await t.request('GET', `/api/history/crm.Customer/${name}`, { anonymous: true })).status).toBe(
      401,
    );
  });
});

describe('comments on a record', () => {
  const comments = (name: string) => `/api/history/crm.Customer/${name}/comments`;

  it('are added by a reader, shown in the timeline, and changed or removed by their author only', async () => {
    const name = await newCustomer('Commented');
    const added = await t.request('POST', comments(name), {
      headers: { authorization: agent },
      body: { text: '  Called about ticket 12.  ' },
    });
    expect(added.status).toBe(201);
    const comment = await json<Entry>(added);
    expect(comment).toMatchObject({ kind: 'comment', user: 'sam', text: 'Called about ticket 12.' });

    const timeline = await json<Entry[]>(await history(name, agent));
    expect(timeline.map((e) => e.kind)).toEqual(['create', 'comment']);

    // Someone else, even a System Manager, may not change it.
    const other = await t.request('PUT', `${comments(name)}/${comment.id}`, { body: { text: 'Rewritten' } });
    expect(other.status).toBe(403);
    expect((await t.request('DELETE', `${comments(name)}/${comment.id}`)).status).toBe(403);

    const edited = await t.request('PUT', `${comments(name)}/${comment.id}`, {
      headers: { authorization: agent },
      body: { text: 'Called twice about ticket 12.' },
    });
    expect(edited.status).toBe(200);
    const changed = await json<Entry>(edited);
    expect(changed).toMatchObject({ text: 'Called twice about ticket 12.' });
    expect(Date.parse(changed.edited ?? '')).not.toBeNaN();

    const removed = await t.request('DELETE', `${comments(name)}/${comment.id}`, {
      headers: { authorization: agent },
    });
    expect(removed.status).toBe(204);
    expect((await json<Entry[]>(await history(name))).map((e) => e.kind)).toEqual(['create']);
  });

  it('refuses an empty or too long text (422), a missing record or comment (404), a non-reader (403)', async () => {
    const name = await newCustomer('Strict');
    const empty = await t.request('POST', comments(name), { body: { text: '   ' } });
    expect(empty.status).toBe(422);
    expect(await empty.json()).toMatchObject({
      error: { code: 'validation_failed', fields: [{ field: 'text' }] },
    });
    expect((await t.request('POST', comments(name), { body: { text: 'x'.repeat(5001) } })).status).toBe(422);
    expect((await t.request('POST', comments('CUST-99999'), { body: { text: 'Hi' } })).status).toBe(404);
    expect((await t.request('PUT', `${comments(name)}/999999`, { body: { text: 'Hi' } })).status).toBe(404);
    const refused = await t.request('POST', comments(name), {
      headers: { authorization: clerk },
      body: { text: 'Hi' },
    });
    expect(refused.status).toBe(403);
  });
});
