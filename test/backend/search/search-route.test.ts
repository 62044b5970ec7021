/**
 * `GET /api/search` against the real MONOLITH app: records of every installed app whose title contains the
 * text, grouped by DocType, under the caller's own credentials; 400 for a missing text, 401 without a session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchAnswer } from '../../../src/protocol';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, makeAppsFixture, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    appsDir: makeAppsFixture({ crm: true, stock: true, support: false }),
    config: { apps: ['crm', 'stock', 'support'] },
  });
  await t.request('POST', '/api/resource/crm.Customer', { body: { customer_name: 'Grace Hopper' } });
  await t.request('POST', '/api/resource/crm.Lead', { body: { lead_name: 'Grace Lead' } });
  await t.request('POST', '/api/resource/support.Ticket', { body: { subject: 'Graceful shutdown fails' } });
  await t.request('POST', '/api/resource/stock.Item', { body: { item_code: 'W-1', item_name: 'Widget' } });
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/search', () => {
  it('finds records of every app by title, grouped by DocType', async () => {
    const res = await t.request('GET', '/api/search?q=grace');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const answer = (await res.json()) as SearchAnswer;
    expect(answer.incomplete).toEqual([]);
    const byDocType = Object.fromEntries(answer.groups.map((g) => [g.docType, g.hits.map((h) => h.title)]));
    expect(byDocType).toEqual({
      'crm.Customer': ['Grace Hopper'],
      'crm.Lead': ['Grace Lead'],
      'support.Ticket': ['Graceful shutdown fails'],
    });
    expect(answer.groups.find((g) => g.docType === 'crm.Customer')).toMatchObject({ label: 'Customer' });
  });

  it('gives a restricted user what the data API gives them: readable DocTypes only, no app "unavailable"', async () => {
    // A Support Agent reads customers and tickets but not leads or items (the sample apps' rules).
    const authorization = await userWithRoles(t.ctx, 'search.agent', ['Support Agent']);
    const res = await t.request('GET', '/api/search?q=grace', { headers: { authorization } });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as SearchAnswer;
    expect(answer.incomplete).toEqual([]);
    const byDocType = Object.fromEntries(answer.groups.map((g) => [g.docType, g.hits.map((h) => h.title)]));
    expect(byDocType).toEqual({
      'crm.Customer': ['Grace Hopper'],
      'support.Ticket': ['Graceful shutdown fails'],
    });
  });

  it('answers 400 invalid_query without a text, and 401 without credentials', async () => {
    const empty = await t.request('GET', '/api/search?q=');
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ error: { code: 'invalid_query' } });
    expect((await t.request('GET', '/api/search?q=grace', { anonymous: true })).status).toBe(401);
  });

  it('counts the length of the text in characters, not in UTF-16 units', async () => {
    const search = (q: string) => t.request('GET', `/api/search?${new URLSearchParams({ q })}`);
    // 100 characters outside the Basic Multilingual Plane: 200 UTF-16 units.
    expect((await search('😀'.repeat(100))).status).toBe(200);
    const long = await search('😀'.repeat(101));
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ error: { code: 'invalid_query' } });
  });
});
