/**
 * MACROSERVICE with a real nats-server, a gateway and two service processes (crm, support): a Ticket's Link
 * to a Customer is checked with the crm service (201 for a customer that exists, 422 `link_not_found` for
 * one that does not), and the global search at the gateway finds records of both services.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../backend/roots/gateway';
import type { DiscoveryResult, SearchAnswer } from '../../../src/protocol';
import { gatewayRequest, MacroserviceDeployment } from '../../helpers/macroservice';
import { waitUntil } from '../../helpers/nats-server';

const SECRET = 'macroservice-links-secret-0123456789abcdef';

const deployment = new MacroserviceDeployment(SECRET);
let gateway: Gateway;
let authorization: string;

function send(method: string, path: string, body?: unknown): Promise<Response> {
  return gatewayRequest(gateway, authorization, method, path, body);
}

beforeAll(async () => {
  ({ gateway, admin: authorization } = await deployment.start({
    apps: ['crm', 'support'],
    tmpPrefix: 'desk-links-',
    overrides: { 'desk.upstream_timeout_ms': 3_000 },
  }));
  await waitUntil(async () => {
    const res = await send('POST', '/api/gateway/discovery/query', {
      resources: ['crm.Customer', 'support.Ticket'],
    });
    const body = (await res.json()) as DiscoveryResult;
    return body.resources['crm.Customer'] === 'crm' && body.resources['support.Ticket'] === 'support';
  });
}, 180_000);

afterAll(() => deployment.close());

describe('Link fields across services in MACROSERVICE', () => {
  it('stores a ticket linking a customer of the crm service, and refuses one linking no customer with 422', async () => {
    const created = await send('POST', '/api/resource/crm.Customer', { customer_name: 'Ada Macro' });
    expect(created.status).toBe(201);
    const customer = ((await created.json()) as { data: { name: string } }).data.name;

    // The support service learns the crm service from the bus; retry until it has.
    let linked: Response | undefined;
    await waitUntil(async () => {
      linked = await send('POST', '/api/resource/support.Ticket', { subject: 'Macro link', customer });
      return linked.status !== 503;
    });
    expect(linked!.status).toBe(201);
    expect(await linked!.json()).toMatchObject({ data: { customer } });

    const broken = await send('POST', '/api/resource/support.Ticket', {
      subject: 'Nobody',
      customer: 'CUST-99999',
    });
    expect(broken.status).toBe(422);
    expect(await broken.json()).toMatchObject({
      error: { code: 'link_not_found', fields: [{ field: 'customer', code: 'link_not_found' }] },
    });
  });

  it('searches both services from the gateway', async () => {
    const res = await send('GET', '/api/search?q=macro');
    expect(res.status).toBe(200);
    const answer = (await res.json()) as SearchAnswer;
    expect(answer.incomplete).toEqual([]);
    const titles = Object.fromEntries(answer.groups.map((g) => [g.docType, g.hits.map((h) => h.title)]));
    expect(titles).toEqual({ 'crm.Customer': ['Ada Macro'], 'support.Ticket': ['Macro link'] });
  });
});
