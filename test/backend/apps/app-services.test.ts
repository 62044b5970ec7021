/**
 * What app code is given: an RPC handler receives its own app's services (records of its own DocTypes, the
 * caller, permission checks, a logger) and nothing of the process; the app's declared `permissions` are the
 * rules in force. Served by the real app over an app folder made with `@framework-m/desk/app`.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appFolder } from '../../helpers/app-folder';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

function makeAppFolder(): string {
  return appFolder(
    'memos',
    'defineApp, defineDocType, defineRpcMethod, z',
    `export const Memo = defineDocType({
  name: 'memos.Memo', label: 'Memo', titleField: 'title',
  model: z.object({ title: z.string().min(1), topic: z.string().optional() }),
});
const roles = ['Memo User'];
const keys = defineRpcMethod({ description: 'What a call holds', roles, kwargs: z.object({}),
  handler: (call) => ({ keys: Object.keys(call).sort(), services: Object.keys(call.ctx).sort(), app: call.app, user: call.principal?.user }) });
const count = defineRpcMethod({ description: 'Count', roles, kwargs: z.object({ topic: z.string() }),
  handler: ({ records, kwargs }) => records.count(Memo.name, { topic: kwargs.topic }) });
const first = defineRpcMethod({ description: 'Get', roles, kwargs: z.object({ name: z.string() }),
  handler: async ({ records, kwargs }) => (await records.get(Memo.name, kwargs.name))?.title ?? null });
const peek = defineRpcMethod({ description: 'Reads another app', roles, kwargs: z.object({}),
  handler: ({ records }) => records.count('crm.Customer') });
const may = defineRpcMethod({ description: 'Checks', roles, kwargs: z.object({}),
  handler: async ({ can }) => ({ read: await can('read', Memo.name), delete: await can('delete', Memo.name) }) });
export default defineApp({
  name: 'memos', label: 'Memos', doctypes: [Memo],
  methods: { 'memos.api.keys': keys, 'memos.api.count': count, 'memos.api.first': first, 'memos.api.peek': peek, 'memos.api.may': may },
  permissions: { [Memo.name]: [{ role: 'Memo User', read: true, create: true }] },
});
`,
  );
}

describe('the services an RPC method receives', () => {
  let dir: string;
  let t: TestApp;
  let memoUser: string;
  const call = async (method: string, body: Record<string, unknown> = {}, authorization = memoUser) =>
    t.request('POST', `/api/method/memos.api.${method}`, { body, headers: { authorization } });

  beforeAll(async () => {
    dir = makeAppFolder();
    t = await createTestApp({ config: { apps: ['crm', dir] } });
    memoUser = await userWithRoles(t.ctx, 'memo-writer', ['Memo User']);
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('are its own app services and the call, nothing of the process', async () => {
    const res = await call('keys');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      message: {
        keys: ['app', 'args', 'can', 'ctx', 'kwargs', 'log', 'principal', 'records'],
        services: ['app', 'can', 'log', 'principal', 'records'],
        app: 'memos',
        user: 'memo-writer',
      },
    });
  });

  it('read the records of the app own DocTypes', async () => {
    const created = await t.request('POST', '/api/resource/memos.Memo', {
      body: { title: 'Budget', topic: 'money' },
      headers: { authorization: memoUser },
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { name: string } };
    await t.request('POST', '/api/resource/memos.Memo', { body: { title: 'Lunch', topic: 'food' } });
    expect(await (await call('count', { topic: 'money' })).json()).toEqual({ message: 1 });
    expect(await (await call('first', { name: data.name })).json()).toEqual({ message: 'Budget' });
  });

  it('refuse another app DocType with unknown_doctype', async () => {
    const res = await call('peek');
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unknown_doctype');
  });

  it('check the caller against the app declared permissions', async () => {
    expect(await (await call('may')).json()).toEqual({ message: { read: true, delete: false } });
    // The administrator (System Manager) may do everything, whatever the app declares.
    expect(await (await t.request('POST', '/api/method/memos.api.may', { body: {} })).json()).toEqual({
      message: { read: true, delete: true },
    });
  });

  it('make the declared rules the ones the data API enforces', async () => {
    const res = await t.request('GET', '/api/permissions/memos.Memo');
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      data: { rules: Array<{ role: string; read: boolean; delete: boolean }>; customized: boolean };
    };
    expect(body.data.customized).toBe(false);
    expect(body.data.rules).toEqual([
      expect.objectContaining({ role: 'Memo User', read: true, delete: false }),
    ]);
    const name = (
      (await (await t.request('GET', '/api/resource/memos.Memo')).json()) as {
        data: Array<{ name: string }>;
      }
    ).data[0]!.name;
    const refused = await t.request('DELETE', `/api/resource/memos.Memo/${name}`, {
      headers: { authorization: memoUser },
    });
    expect(refused.status).toBe(403);
  });
});
