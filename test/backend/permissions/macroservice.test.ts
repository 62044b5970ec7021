/**
 * Roles enforced at the service in MACROSERVICE (docs/permissions.md), with a real nats-server: the gateway
 * signs the principal with its roles, the crm and stock services check them; rules changed through the
 * gateway take effect at the owning service; a service creates no Administrator of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInternalRequest } from '../../../backend/auth/internal-auth';
import type { PlatformConfig } from '../../../backend/config/schema';
import type { Database } from '../../../backend/db/database';
import { PII_MASK } from '../../../backend/permissions/mask';
import type { Gateway } from '../../../backend/roots/gateway';
import type { RunningService } from '../../../backend/roots/service';
import {
  GATEWAY_URL,
  gatewayRequest,
  MacroserviceDeployment,
  startMemoryGateway,
} from '../../helpers/macroservice';
import { waitUntil } from '../../helpers/nats-server';
import { userWithRoles } from '../../helpers/roles';

const SECRET = 'permissions-test-secret-0123456789abcdef';

const deployment = new MacroserviceDeployment(SECRET);
let config: PlatformConfig;
let gateway: Gateway;
let gatewayDb: Database;
let services: Record<string, RunningService>;
let serviceDb: Record<string, Database>;
let admin: string;
let stock: string;
let sales: string;

function send(authorization: string, method: string, path: string, body?: unknown) {
  return gatewayRequest(gateway, authorization, method, path, body);
}

async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

beforeAll(async () => {
  ({
    config,
    gateway,
    gatewayDatabase: gatewayDb,
    admin,
    services,
    serviceDatabases: serviceDb,
  } = await deployment.start({
    apps: ['crm', 'stock'],
    tmpPrefix: 'desk-perm-macro-',
    overrides: { 'desk.upstream_timeout_ms': 5_000 },
  }));
  // Users live at the gateway: the services only ever see the roles it signs.
  stock = await userWithRoles(gateway.ctx, 'stock.user', ['Stock User']);
  sales = await userWithRoles(gateway.ctx, 'sales.user', ['Sales User']);
  await waitUntil(
    async () => gateway.directory.get('crm') !== undefined && gateway.directory.get('stock') !== undefined,
  );
}, 120_000);

afterAll(() => deployment.close());

describe('MACROSERVICE: roles enforced at the service', () => {
  it('a Stock User reads and creates stock.Item, gets 403 on delete, on crm.Customer and on a crm RPC', async () => {
    const created = await send(stock, 'POST', '/api/resource/stock.Item', {
      item_code: 'M-1',
      item_name: 'Pin',
    });
    expect(created.status).toBe(201);
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    expect((await send(stock, 'GET', `/api/resource/stock.Item/${name}`)).status).toBe(200);
    expect((await send(stock, 'GET', '/api/resource/stock.Item')).status).toBe(200);
    const deleted = await send(stock, 'DELETE', `/api/resource/stock.Item/${name}`);
    expect(deleted.status).toBe(403);
    expect(await codeOf(deleted)).toBe('forbidden');
    const refused = [
      await send(stock, 'GET', '/api/resource/crm.Customer'),
      await send(stock, 'POST', '/api/resource/crm.Customer', { customer_name: 'X' }),
      await send(stock, 'POST', '/api/method/crm.api.customer_count', {}),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403]);
  });

  it('a Sales User without read_pii sees Customer email and phone masked', async () => {
    const created = await send(admin, 'POST', '/api/resource/crm.Customer', {
      customer_name: 'Ada',
      email: 'ada@example.com',
      phone: '+44 20 7946 0958',
    });
    expect(created.status).toBe(201);
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    const one = await send(sales, 'GET', `/api/resource/crm.Customer/${name}`);
    const body = (await one.json()) as { data: Record<string, unknown>; masked_fields: string[] };
    expect(body.data).toMatchObject({ customer_name: 'Ada', email: PII_MASK, phone: PII_MASK });
    expect(body.masked_fields).toEqual(['email', 'phone']);
    const list = (await (await send(sales, 'GET', '/api/resource/crm.Customer')).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(list.data.every((r) => r.email === undefined || r.email === PII_MASK)).toBe(true);
  });

  it('a System Manager changes a permission at run time and it takes effect at the service', async () => {
    const created = await send(stock, 'POST', '/api/resource/stock.Item', {
      item_code: 'M-2',
      item_name: 'Cog',
    });
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    const rules = [{ role: 'Stock User', read: true, create: true, write: true, delete: true }];
    expect((await send(stock, 'PUT', '/api/permissions/stock.Item', { rules })).status).toBe(403);
    const set = await send(admin, 'PUT', '/api/permissions/stock.Item', { rules });
    expect(set.status).toBe(200);
    // Stored by the service owning the DocType, in its own database.
    const { rows } = await serviceDb.stock!.query<{ doctype: string }>(
      'SELECT doctype FROM permission_rules',
    );
    expect(rows.map((r) => r.doctype)).toEqual(['stock.Item']);
    const who = (await (await send(stock, 'GET', '/api/method/whoami')).json()) as {
      message: { roles: string[]; permissions: Record<string, { delete: boolean; read: boolean }> };
    };
    expect(who.message.roles).toEqual(['Stock User']);
    expect(who.message.permissions['stock.Item']?.delete).toBe(true);
    expect(who.message.permissions['crm.Customer']?.read).toBe(false);
    expect((await send(stock, 'DELETE', `/api/resource/stock.Item/${name}`)).status).toBe(200);
    expect((await send(admin, 'DELETE', '/api/permissions/stock.Item')).status).toBe(200);
  });

  it("the gateway's users API offers the roles every service's rules name, stored ones included", async () => {
    const roles = async (who: string) => send(who, 'POST', '/api/method/platform.users.roles', {});
    expect((await roles(stock)).status).toBe(403);
    const rules = [{ role: 'Stock Auditor', read: true }];
    expect((await send(admin, 'PUT', '/api/permissions/stock.Item', { rules })).status).toBe(200);
    try {
      const offered = ((await (await roles(admin)).json()) as { message: string[] }).message;
      // crm's declared rules, stock's stored one, and the platform's own roles.
      expect(offered).toEqual(
        expect.arrayContaining(['Sales User', 'Stock Auditor', 'System Manager', 'Metrics Reader']),
      );
      expect(offered).toEqual([...offered].sort());
    } finally {
      expect((await send(admin, 'DELETE', '/api/permissions/stock.Item')).status).toBe(200);
    }
  });

  it('a service takes roles only from a principal its gateway signed', async () => {
    const url = `${services.stock!.url}/api/resource/stock.Item`;
    const target = '/api/resource/stock.Item';
    const forged = signInternalRequest('not-the-shared-secret-0123456789abcdef', {
      method: 'GET',
      target,
      body: '',
      principal: { user: 'mallory', via: 'api_key', roles: ['System Manager'] },
    });
    expect((await fetch(url, { headers: forged })).status).toBe(401);
    const roleless = signInternalRequest(SECRET, {
      method: 'GET',
      target,
      body: '',
      principal: { user: 'stock.user', via: 'api_key' },
    });
    expect((await fetch(url, { headers: roleless })).status).toBe(403);
  });

  it('a password change revokes the old key at the gateway; services have no Administrator', async () => {
    const key = await userWithRoles(gateway.ctx, 'temp.user', ['Stock User']);
    expect((await send(key, 'GET', '/api/resource/stock.Item')).status).toBe(200);
    const reset = await send(admin, 'POST', '/api/method/platform.users.set_password', {
      name: 'temp.user',
      password: 'a-new-password',
    });
    expect(reset.status).toBe(200);
    expect((await send(key, 'GET', '/api/resource/stock.Item')).status).toBe(401);
    for (const app of ['crm', 'stock']) {
      const { rows } = await serviceDb[app]!.query('SELECT name FROM auth_users');
      expect(rows).toEqual([]);
    }
  });

  it('two gateways share the failed sign-in counters through NATS KV', async () => {
    const { gateway: second } = await startMemoryGateway(config, SECRET, gatewayDb);
    try {
      await gateway.ctx.security.users.addUser('guessed', 'guessed-password', ['Stock User']);
      const login = (g: Gateway, pwd: string) =>
        g.app.fetch(
          new Request(`${GATEWAY_URL}/api/method/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ usr: 'guessed', pwd }),
          }),
        );
      for (let i = 0; i < 5; i++) {
        expect((await login(i % 2 === 0 ? gateway : second, `wrong-${i}`)).status).toBe(401);
      }
      const locked = await login(second, 'guessed-password');
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await login(gateway, 'guessed-password')).status).toBe(429);
    } finally {
      await second.close();
    }
  });
});
