import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { forbidden, requireMethod, requirePermission } from '../../../backend/permissions/guard';
import { PermissionService } from '../../../backend/permissions/permission-service';
import { DbPermissionRuleStore } from '../../../backend/permissions/rule-store';

const declarations = {
  doctypes: [
    { name: 'stock.Item', permissions: [{ role: 'Stock User', read: true, create: true, write: true }] },
    { name: 'crm.Customer', permissions: [{ role: 'Sales User', read: true }] },
    { name: 'x.Undeclared' },
  ],
  methods: [{ name: 'crm.api.ping', roles: ['Sales User'] }, { name: 'crm.api.secret' }],
};

// One database for the file (opening one is slow); each test leaves the rules as it found them or uses its own.
let db: Database;
beforeAll(async () => {
  db = await openDatabase({ memory: true });
});
afterAll(() => db.close());

async function service(refreshMs = 0) {
  const s = new PermissionService({ declarations, store: new DbPermissionRuleStore(db), refreshMs });
  await s.init();
  return s;
}

describe('PermissionService', () => {
  it('applies the declared defaults; an undeclared DocType is for System Managers only', async () => {
    const s = await service();
    expect(await s.allows(['Stock User'], 'stock.Item', 'create')).toBe(true);
    expect(await s.allows(['Stock User'], 'stock.Item', 'delete')).toBe(false);
    expect(await s.allows(['Stock User'], 'crm.Customer', 'read')).toBe(false);
    expect(await s.allows(['Stock User'], 'x.Undeclared', 'read')).toBe(false);
    expect(await s.allows(['System Manager'], 'x.Undeclared', 'delete')).toBe(true);
    const map = await s.permissionMap(['Sales User']);
    expect(Object.keys(map)).toEqual(['crm.Customer', 'stock.Item', 'x.Undeclared']);
    expect(map['crm.Customer']).toMatchObject({ read: true, write: false });
  });

  it('stored rules replace the defaults at once and survive a new service on the same database', async () => {
    const s = await service();
    await s.setRules('stock.Item', [{ role: 'Stock User', read: true, delete: true }]);
    expect(await s.allows(['Stock User'], 'stock.Item', 'delete')).toBe(true);
    expect(await s.allows(['Stock User'], 'stock.Item', 'create')).toBe(false);
    const restarted = await service();
    expect(await restarted.rules('stock.Item')).toMatchObject({ customized: true });
    expect(await restarted.allows(['Stock User'], 'stock.Item', 'delete')).toBe(true);
    await restarted.resetRules('stock.Item');
    expect(await restarted.allows(['Stock User'], 'stock.Item', 'delete')).toBe(false);
    expect((await restarted.rules('stock.Item')).customized).toBe(false);
  });

  it('sees a change another process stored once its cache is refreshed', async () => {
    const a = await service(0);
    const b = await service(0);
    await b.setRules('crm.Customer', [{ role: 'Stock User', read: true }]);
    expect(await a.allows(['Stock User'], 'crm.Customer', 'read')).toBe(true);
    await b.resetRules('crm.Customer');
  });

  it('guards throw 403 forbidden naming the operation and the target', async () => {
    const s = await service();
    await expect(requirePermission(s, ['Stock User'], 'stock.Item', 'delete')).rejects.toMatchObject({
      code: 'forbidden',
      status: 403,
      message: 'You may not delete stock.Item.',
    });
    expect(() => requireMethod(s, ['Stock User'], 'crm.api.ping')).toThrow('You may not call crm.api.ping.');
    expect(() => requireMethod(s, ['Sales User'], 'crm.api.ping')).not.toThrow();
    expect(() => requireMethod(s, ['Sales User'], 'crm.api.secret')).toThrow();
    expect(forbidden('read_pii', 'crm.Customer').message).toBe(
      'You may not read personal data of crm.Customer.',
    );
  });
});
