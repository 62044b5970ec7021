import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { crmApp } from '../../../backend/apps/crm/app';
import { stockApp } from '../../../backend/apps/stock/app';
import { createDocTypeRegistry } from '../../../backend/doctypes/registry';
import { defineDocType } from '../../../src/contract/doctype';

describe('createDocTypeRegistry', () => {
  const registry = createDocTypeRegistry([crmApp, stockApp]);

  it('finds DocTypes by full name and by app', () => {
    expect(registry.get('crm.Customer')?.titleField).toBe('customer_name');
    expect(registry.get('crm.Nope')).toBeUndefined();
    expect(registry.byApp('stock').map((d) => d.name)).toEqual(['stock.Item', 'stock.Warehouse']);
    expect(registry.byApp('hr')).toEqual([]);
    expect(registry.list()).toHaveLength(4);
  });

  it('refuses a DocType declared twice or by the wrong app', () => {
    const Thing = defineDocType({ name: 'hr.Thing', label: 'Thing', titleField: 'x', model: z.object({}) });
    expect(() => createDocTypeRegistry([{ name: 'crm', doctypes: [Thing] }])).toThrow(/named for "hr"/);
    expect(() =>
      createDocTypeRegistry([
        { name: 'hr', doctypes: [Thing] },
        { name: 'hr', doctypes: [Thing] },
      ]),
    ).toThrow(/declared twice/);
  });

  it('refuses a model field named like a standard column', () => {
    const Clash = defineDocType({
      name: 'hr.Clash',
      label: 'Clash',
      titleField: 'name',
      model: z.object({ name: z.string() }),
    });
    expect(() => createDocTypeRegistry([{ name: 'hr', doctypes: [Clash] }])).toThrow(/reserved field "name"/);
  });
});
