import type { InstalledApp } from '../types';
import { ping, stockValue, totalQuantity } from './api';
import { Item, Warehouse } from './doctypes';

/** The sample stock app: items and warehouses. */
export const stockApp: InstalledApp = {
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
};
