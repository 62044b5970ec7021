/**
 * The audit log through a MACROSERVICE gateway (docs/operators.md#the-audit-log): a real nats-server, the
 * gateway and the crm and stock services in this process, each service on its own database. A reveal at crm
 * is appended to crm's own log; the gateway answers `/api/audit` and `/api/audit/verify` by asking the
 * services with the caller's principal, and its answers hold no personal data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entriesFromCsv } from '../../../backend/audit/audit-csv';
import { type AuditEntry, verifyChain } from '../../../backend/audit/chain';
import type { Gateway } from '../../../backend/roots/gateway';
import { PII_MASK } from '../../../src/protocol';
import { gatewayRequest, MacroserviceDeployment, type StartedDeployment } from '../../helpers/macroservice';
import { userWithRoles } from '../../helpers/roles';

const SECRET = 'gateway-audit-test-secret-0123456789abcdef';
const EMAIL = 'grace.gateway-audit@example.com';

const deployment = new MacroserviceDeployment(SECRET);
let started: StartedDeployment;
let gateway: Gateway;
let salesUser: string;
let customer = '';

async function json<T>(res: Response, status = 200): Promise<T> {
  expect(`${res.status} ${res.status === status ? '' : await res.clone().text()}`).toBe(`${status} `);
  return (await res.json()) as T;
}

/** crm's own log, read from its database. */
async function crmLog(): Promise<number> {
  const { rows } = await started.serviceDatabases.crm!.query<{ n: string | number }>(
    'SELECT count(*) AS n FROM audit_log',
  );
  return Number(rows[0]!.n);
}

beforeAll(async () => {
  started = await deployment.start({ apps: ['crm', 'stock'], tmpPrefix: 'desk-gateway-audit-' });
  gateway = started.gateway;
  salesUser = await userWithRoles(gateway.ctx, 'sales.gateway.audit', ['Sales User']);
  const created = await gatewayRequest(gateway, started.admin, 'POST', '/api/resource/crm.Customer', {
    customer_name: 'Grace Audit',
    email: EMAIL,
  });
  customer = (await json<{ data: { name: string } }>(created, 201)).data.name;
}, 120_000);

afterAll(() => deployment.close());

describe('the audit log through a MACROSERVICE gateway', () => {
  it("lists a reveal at crm, newest first, named by its service, from crm's own log", async () => {
    const before = await crmLog();
    const read = await gatewayRequest(
      gateway,
      started.admin,
      'GET',
      `/api/resource/crm.Customer/${customer}`,
    );
    expect((await json<{ data: { email: string } }>(read)).data.email).toBe(EMAIL);
    expect(await crmLog()).toBe(before + 1);
    // The gateway's own database holds no log entry: the services keep them.
    const { rows } = await started.gatewayDatabase.query<{ n: string | number }>(
      'SELECT count(*) AS n FROM audit_log',
    );
    expect(Number(rows[0]!.n)).toBe(0);

    const res = await gatewayRequest(gateway, started.admin, 'GET', '/api/audit?order=newest');
    const text = await res.clone().text();
    const page = await json<{ data: AuditEntry[]; total: number }>(res);
    expect(page.total).toBe(before + 1);
    expect(page.data[0]).toMatchObject({
      service: 'crm',
      user: 'Administrator',
      doctype: 'crm.Customer',
      record: customer,
      fields: ['email', 'phone'],
      route: 'get',
    });
    expect(text).not.toContain(EMAIL);
  });

  it('adds nothing for a reader without read_pii, who is shown the mask and refused the log', async () => {
    const before = await crmLog();
    const read = await gatewayRequest(gateway, salesUser, 'GET', `/api/resource/crm.Customer/${customer}`);
    expect((await json<{ data: { email: string } }>(read)).data.email).toBe(PII_MASK);
    expect(await crmLog()).toBe(before);
    const refused = await gatewayRequest(gateway, salesUser, 'GET', '/api/audit');
    expect((await json<{ error: { code: string } }>(refused, 403)).error.code).toBe('forbidden');
    const total = await gatewayRequest(gateway, started.admin, 'GET', `/api/audit?record=${customer}`);
    expect((await json<{ total: number }>(total)).total).toBe(before);
  });

  it("asks a DocType's owner for its entries, and checks every service's chain", async () => {
    const byDocType = await gatewayRequest(gateway, started.admin, 'GET', '/api/audit?doctype=crm.Customer');
    const page = await json<{ data: AuditEntry[]; total: number }>(byDocType);
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.every((e) => e.service === 'crm' && e.doctype === 'crm.Customer')).toBe(true);
    const none = await gatewayRequest(gateway, started.admin, 'GET', '/api/audit?doctype=stock.Item');
    expect(await json(none)).toEqual({ data: [], total: 0 });

    const verify = await gatewayRequest(gateway, started.admin, 'GET', '/api/audit/verify');
    const { data } = await json<{
      data: { ok: boolean; entries: number; services: Record<string, unknown> };
    }>(verify);
    expect(data.ok).toBe(true);
    expect(data.entries).toBe(await crmLog());
    expect(data.services).toMatchObject({
      crm: { ok: true, entries: await crmLog() },
      stock: { ok: true, entries: 0 },
    });
  });

  it('exports the merged log as CSV, each entry named by its service, narrowed by time at the services', async () => {
    const res = await gatewayRequest(gateway, started.admin, 'GET', '/api/audit/export.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe(String(await crmLog()));
    const text = await res.text();
    expect(text).not.toContain(EMAIL);
    const [header, ...rows] = text.trim().split('\r\n');
    expect(header).toBe('service,seq,at,user,via,doctype,record,fields,route,client_address,prev_hash,hash');
    expect(rows).toHaveLength(await crmLog());
    // The merged file verifies, each service's chain on its own (`m audit verify --file` reads it so).
    expect(await verifyChain(entriesFromCsv(text))).toMatchObject({
      ok: true,
      entries: await crmLog(),
      heads: { crm: { seq: await crmLog() } },
    });
    expect(rows[0]).toMatch(
      new RegExp(`^crm,1,[^,]+,Administrator,[a-z_]+,crm\\.Customer,${customer},email phone,get,`),
    );

    const future = await gatewayRequest(
      gateway,
      started.admin,
      'GET',
      '/api/audit/export.csv?from=2999-01-01',
    );
    expect(future.headers.get('x-total-count')).toBe('0');
    expect((await future.text()).trim().split('\r\n')).toHaveLength(1);
    const refused = await gatewayRequest(gateway, salesUser, 'GET', '/api/audit/export.csv');
    expect((await json<{ error: { code: string } }>(refused, 403)).error.code).toBe('forbidden');
  });
});
