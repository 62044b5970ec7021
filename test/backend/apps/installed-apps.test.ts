import { describe, expect, it } from 'vitest';
import { crmApp } from '../../../backend/apps/crm/app';
import { loadInstalledApps } from '../../../backend/apps/index';
import { createRpcRegistry } from '../../../backend/apps/rpc-registry';
import { stockApp } from '../../../backend/apps/stock/app';

function fieldsOf(app: typeof crmApp, doctype: string) {
  return Object.fromEntries(app.doctypes.find((d) => d.name === doctype)!.fields.map((f) => [f.name, f]));
}

describe('installed apps', () => {
  it('declares crm.Customer with a required name, pii email and phone, and a status select', () => {
    const f = fieldsOf(crmApp, 'crm.Customer');
    expect(f.customer_name).toMatchObject({ required: true, type: 'string' });
    expect(f.email).toMatchObject({ pii: true, type: 'email', required: false });
    expect(f.phone).toMatchObject({ pii: true, type: 'phone' });
    expect(f.status).toMatchObject({ type: 'select', options: ['Active', 'Inactive', 'Prospect'] });
    expect(Object.keys(fieldsOf(crmApp, 'crm.Lead'))).toEqual(['lead_name', 'source']);
  });

  it('declares stock.Item with an int quantity and a currency price, and stock.Warehouse', () => {
    const f = fieldsOf(stockApp, 'stock.Item');
    expect(Object.keys(f)).toEqual(['item_code', 'item_name', 'quantity', 'price']);
    expect(f.quantity!.type).toBe('int');
    expect(f.price!.type).toBe('currency');
    expect(Object.keys(fieldsOf(stockApp, 'stock.Warehouse'))).toEqual(['warehouse_name', 'location']);
  });

  it('loads apps by name and refuses an unknown one, naming what exists', async () => {
    expect((await loadInstalledApps(['stock', 'crm'])).map((a) => a.name)).toEqual(['stock', 'crm']);
    await expect(loadInstalledApps(['crm', 'hr'])).rejects.toThrow(
      /unknown app\(s\).*hr.*available: crm, stock, support/,
    );
  });

  it('registers RPC methods by dotted name and refuses one outside its app', () => {
    const rpc = createRpcRegistry([crmApp, stockApp]);
    expect(rpc.list()).toContain('crm.api.customer_count');
    expect(rpc.list()).toContain('stock.api.total_quantity');
    expect(() =>
      createRpcRegistry([{ name: 'stock', methods: { 'crm.api.ping': crmApp.methods['crm.api.ping']! } }]),
    ).toThrow(/must be named stock\./);
  });
});
