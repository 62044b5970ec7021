import { defineApp } from '../../../src/app';
import { ping, stockValue, totalQuantity } from './api';
import { Item, Warehouse } from './doctypes';

/** The sample stock app: items and warehouses. */
export const stockApp = defineApp({
  name: 'stock',
  label: 'Stock',
  doctypes: [Item, Warehouse],
  methods: {
    'stock.api.ping': ping,
    'stock.api.total_quantity': totalQuantity,
    'stock.api.stock_value': stockValue,
  },
  menus: [
    { label: 'Items', doctype: Item.name },
    { label: 'Warehouses', doctype: Warehouse.name },
  ],
  // Stock Users keep items and warehouses up to date but delete nothing; Stock Managers may do everything.
  permissions: {
    [Item.name]: [
      { role: 'Stock User', read: true, create: true, write: true },
      { role: 'Stock Manager', read: true, create: true, write: true, delete: true, read_pii: true },
    ],
    [Warehouse.name]: [
      { role: 'Stock User', read: true, create: true, write: true },
      { role: 'Stock Manager', read: true, create: true, write: true, delete: true, read_pii: true },
    ],
  },
});
