/**
 * The global search (Ctrl+K) by the exact value of a flagged field that is not the title, against the real
 * MONOLITH app: a customer's whole email finds the customer through the email's blind index (case and
 * surrounding spaces aside) and is audited as revealing the email; a part of it finds nothing; a reader
 * without read_pii finds nothing and the service still answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchAnswer } from '../../../src/protocol';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let grace: string;

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.request('POST', '/api/resource/crm.Customer', {
    body: { customer_name: 'Grace Hopper', email: 'grace.hopper@example.com' },
  });
  expect(res.status).toBe(201);
  grace = ((await res.json()) as { data: { name: string } }).data.name;
  await t.request('POST', '/api/resource/crm.Customer', {
    body: { customer_name: 'Alan Turing', email: 'alan@example.org' },
  });
});
afterAll(() => t?.close());

async function search(q: string, authorization?: string): Promise<SearchAnswer> {
  const res = await t.request('GET', `/api/search?${new URLSearchParams({ q })}`, {
    headers: authorization ? { authorization } : undefined,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as SearchAnswer;
}

const customers = (answer: SearchAnswer) =>
  answer.groups.find((g) => g.docType === 'crm.Customer')?.hits ?? [];

describe('the global search by a whole personal value', () => {
  it('finds the customer by the exact email, whatever its case and surrounding spaces, and audits it', async () => {
    const before = (await t.ctx.audit!.list({ limit: 1000 })).total;
    const answer = await search('  Grace.Hopper@EXAMPLE.com ');
    expect(answer.incomplete).toEqual([]);
    expect(customers(answer)).toEqual([{ name: grace, title: 'Grace Hopper' }]);
    const added = (await t.ctx.audit!.list({ start: before, limit: 1000 })).data;
    expect(added.map((e) => [e.doctype, e.record, e.fields, e.route])).toEqual([
      ['crm.Customer', grace, ['email'], 'list'],
    ]);
  });

  it('finds nothing by a part of the email', async () => {
    expect(customers(await search('grace.hopper'))).toEqual([]);
  });

  it('lists a customer found by its title and its email once', async () => {
    await t.request('POST', '/api/resource/crm.Customer', {
      body: { customer_name: 'same@example.net', email: 'same@example.net' },
    });
    expect(customers(await search('same@example.net')).map((h) => h.title)).toEqual(['same@example.net']);
  });

  it('audits no record it does not show: a full page by title leaves no room to ask the email', async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await t.request('POST', '/api/resource/crm.Customer', {
        body: { customer_name: `Full House ${i} full@example.net` },
      });
      expect(res.status).toBe(201);
    }
    const res = await t.request('POST', '/api/resource/crm.Customer', {
      body: { customer_name: 'Hidden Holder', email: 'full@example.net' },
    });
    const hidden = ((await res.json()) as { data: { name: string } }).data.name;
    const before = (await t.ctx.audit!.list({ limit: 1000 })).total;
    const answer = await search('full@example.net');
    expect(answer.incomplete).toEqual([]);
    const shown = customers(answer).map((h) => h.name);
    expect(shown).toHaveLength(5);
    expect(shown).not.toContain(hidden);
    const added = (await t.ctx.audit!.list({ start: before, limit: 1000 })).data;
    expect(added.filter((e) => !shown.includes(e.record))).toEqual([]);
  });

  it('finds nothing for a reader without read_pii, and names no service unavailable', async () => {
    const sales = await userWithRoles(t.ctx, 'search.sales', ['Sales User']);
    const answer = await search('grace.hopper@example.com', sales);
    expect(answer.incomplete).toEqual([]);
    expect(customers(answer)).toEqual([]);
  });
});
