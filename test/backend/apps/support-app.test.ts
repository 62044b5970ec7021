/** The data-only support app: installed on request, discoverable, served by the data API, no UI remote. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makeAppsFixture, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let appsDir: string;
beforeAll(async () => {
  // crm and stock ship a remote; support has a folder but no static/mfe (like the real one).
  appsDir = makeAppsFixture({ crm: true, stock: true, support: false });
  t = await createTestApp({ appsDir, config: { apps: ['crm', 'stock', 'support'] } });
});
afterAll(async () => {
  await t?.close();
});

describe('the support app', () => {
  it('resolves support.Ticket to support in discovery, and is not in the remotes map', async () => {
    const res = await t.request('POST', '/api/gateway/discovery/query', {
      body: { resources: ['support.Ticket', 'crm.Customer'] },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      resources: Record<string, string | null>;
      services: Record<string, { url: string | null }>;
    };
    expect(body.resources).toEqual({ 'support.Ticket': 'support', 'crm.Customer': 'crm' });
    expect(body.services.support?.url).toBeNull();
    const remotes = (await (await t.request('GET', '/api/gateway/remotes')).json()) as Record<
      string,
      unknown
    >;
    expect(Object.keys(remotes).sort()).toEqual(['crm', 'stock']);
  });

  it('stores tickets with defaults and counts the open ones', async () => {
    const created = await t.request('POST', '/api/resource/support.Ticket', {
      body: { subject: 'Printer jam' },
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({ subject: 'Printer jam', status: 'Open', priority: 'Medium' });
    expect(String(data.name)).toMatch(/^TKT-/);
    await t.request('POST', '/api/resource/support.Ticket', { body: { subject: 'Done', status: 'Closed' } });
    const count = await t.request('POST', '/api/method/support.api.open_count', { body: {} });
    expect(await count.json()).toEqual({ message: 1 });
  });

  it('refuses a ticket without a subject or with an unknown priority', async () => {
    const res = await t.request('POST', '/api/resource/support.Ticket', { body: { priority: 'Urgent' } });
    expect(res.status).toBe(422);
    const { error } = (await res.json()) as { error: { code: string; fields: Array<{ field: string }> } };
    expect(error.code).toBe('validation_failed');
    expect(error.fields.map((f) => f.field).sort()).toEqual(['priority', 'subject']);
  });
});
