import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscoveryResult, RemotesMap } from '../../../src/protocol';
import { TEST_ORIGIN } from '../../helpers/http';
import { createTestApp, FAKE_REMOTE_ENTRY, makeAppsFixture, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let dataOnly: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  dataOnly = await createTestApp({
    appsDir: makeAppsFixture({ crm: true, stock: false }),
    database: t.ctx.db,
  });
});
afterAll(async () => {
  await dataOnly?.close();
  await t?.close();
});

const query = (app: TestApp, body: unknown, headers?: Record<string, string>) =>
  app.request('POST', '/api/gateway/discovery/query', { body, headers });

describe('GET /api/gateway/remotes', () => {
  it("lists crm and stock with url, apiUrl, metaUrl and the entry's integrity", async () => {
    const res = await t.request('GET', '/api/gateway/remotes');
    expect(res.status).toBe(200);
    const map = (await res.json()) as RemotesMap;
    expect(Object.keys(map).sort()).toEqual(['crm', 'stock']);
    expect(map.crm).toEqual({
      url: `${TEST_ORIGIN}/desk/assets/crm/remoteEntry.js`,
      apiUrl: `${TEST_ORIGIN}/api`,
      metaUrl: `${TEST_ORIGIN}/api/meta/crm`,
      openapiUrl: `${TEST_ORIGIN}/api/openapi.json`,
      integrity: `sha384-${createHash('sha384').update(FAKE_REMOTE_ENTRY).digest('base64')}`,
    });
    expect(map.stock!.metaUrl).toBe(`${TEST_ORIGIN}/api/meta/stock`);
  });

  it('leaves out an app without static/mfe/remoteEntry.js', async () => {
    const map = (await (await dataOnly.request('GET', '/api/gateway/remotes')).json()) as RemotesMap;
    expect(Object.keys(map)).toEqual(['crm']);
  });
});

describe('POST /api/gateway/discovery/query', () => {
  it('answers owners crm, stock, null and crm’s manifest, then leaves it out at the current rev', async () => {
    const res = await query(t, {
      resources: ['crm.Customer', 'stock.Item', 'nope.Nope'],
      services: { crm: 0 },
    });
    expect(res.status).toBe(200);
    const first = (await res.json()) as DiscoveryResult;
    expect(first.resources).toEqual({ 'crm.Customer': 'crm', 'stock.Item': 'stock', 'nope.Nope': null });
    expect(first.services.crm).toMatchObject({
      service: 'crm',
      url: `${TEST_ORIGIN}/desk/assets/crm/remoteEntry.js`,
      apiUrl: `${TEST_ORIGIN}/api`,
      doctypes: ['crm.Customer', 'crm.Lead'],
    });
    const rev = first.services.crm!.rev;
    expect(rev).toBeGreaterThan(0);

    const again = (await (
      await query(t, { resources: ['crm.Customer', 'stock.Item', 'nope.Nope'], services: { crm: rev } })
    ).json()) as DiscoveryResult;
    expect(again.resources).toEqual(first.resources);
    expect(again.services.crm).toBeUndefined();
  });

  it('with remotes: true also names the entry of each service with a UI remote, as the remotes map does', async () => {
    const map = (await (await t.request('GET', '/api/gateway/remotes')).json()) as RemotesMap;
    const held = (await (await query(t, { resources: [], services: { crm: 0 } })).json()) as DiscoveryResult;
    const answer = (await (
      await query(t, { resources: [], services: { crm: held.services.crm!.rev }, remotes: true })
    ).json()) as DiscoveryResult;
    expect(answer.services).toEqual({});
    expect(answer.remotes).toEqual({ crm: map.crm!.url, stock: map.stock!.url });
    // Not asked: the answer is as before.
    const plain = (await (await query(t, { resources: [] })).json()) as DiscoveryResult;
    expect('remotes' in plain).toBe(false);
    // A data-only service has no entry to name.
    const dataOnlyAnswer = (await (
      await query(dataOnly, { resources: [], remotes: true })
    ).json()) as DiscoveryResult;
    expect(dataOnlyAnswer.remotes).toEqual({ crm: `${TEST_ORIGIN}/desk/assets/crm/remoteEntry.js` });
  });

  it('still resolves DocTypes of a data-only app, with a null remote url', async () => {
    const res = (await (await query(dataOnly, { resources: ['stock.Item'] })).json()) as DiscoveryResult;
    expect(res.resources).toEqual({ 'stock.Item': 'stock' });
    expect(res.services.stock).toMatchObject({ url: null, apiUrl: `${TEST_ORIGIN}/api` });
  });

  it.each([
    ['a malformed name', { resources: ['crm/Customer'] }],
    ['a non-string entry', { resources: [{ name: 'crm.Customer' }] }],
    [
      'more resources than gateway.max_resources',
      { resources: Array.from({ length: 501 }, (_, i) => `a.D${i}`) },
    ],
    ['no resources', { services: {} }],
    ['remotes that is not a boolean', { resources: [], remotes: 1 }],
  ])('refuses %s with 400 invalid_query', async (_label, body) => {
    const res = await query(t, body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_query');
  });

  it('refuses 10,000 resources: the body alone is over the gateway body limit (413)', async () => {
    const res = await query(t, { resources: Array.from({ length: 10_000 }, (_, i) => `a.D${i}`) });
    expect(res.status).toBe(413);
  });

  it('refuses a 5 MB body with 413 payload_too_large', async () => {
    const body = JSON.stringify({ resources: ['crm.Customer'], pad: 'x'.repeat(5 * 1024 * 1024) });
    const res = await query(t, body, { 'content-type': 'application/json' });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('refuses a body that is not application/json with 415', async () => {
    const res = await query(t, '{"resources":[]}', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
  });
});

describe('GET /api/gateway/discovery/:resource', () => {
  it('answers the owner', async () => {
    const res = await t.request('GET', '/api/gateway/discovery/stock.Warehouse');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ owner: 'stock' });
  });

  it('answers 404 unknown_resource for an unknown DocType and 400 for a malformed one', async () => {
    const unknown = await t.request('GET', '/api/gateway/discovery/nope.Nope');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'unknown_resource' } });
    const malformed = await t.request('GET', '/api/gateway/discovery/..%2Fetc');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: 'invalid_query' } });
  });
});
