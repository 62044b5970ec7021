/** `GET /api/gateway/services`: every installed service, a data-only one included, for the Desk's navigation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServicesMap } from '../../../src/protocol';
import { createTestApp, makeAppsFixture, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    appsDir: makeAppsFixture({ crm: true, stock: true, support: false }),
    config: { apps: ['crm', 'stock', 'support'] },
  });
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/gateway/services', () => {
  it('lists every installed service, with a null url for one without a UI remote, without a credential', async () => {
    const res = await t.request('GET', '/api/gateway/services', { anonymous: true });
    expect(res.status).toBe(200);
    const services = (await res.json()) as ServicesMap;
    expect(Object.keys(services).sort()).toEqual(['crm', 'stock', 'support']);
    expect(services.support).toMatchObject({
      url: null,
      metaUrl: expect.stringMatching(/\/api\/meta\/support$/),
    });
    expect(services.crm?.url).toMatch(/remoteEntry\.js$/);
  });
});
