import { defineDocType, z } from '../../../src/app';

/** `stock.Item`: a stocked item, its quantity on hand and unit price. */
export const Item = defineDocType({
  name: 'stock.Item',
  label: 'Item',
  titleField: 'item_name',
  namePrefix: 'ITEM',
  model: z.object({
    item_code: z.string().trim().min(1).max(140).meta({ label: 'Item Code', inList: true, unique: true }),
    item_name: z.string().trim().min(1).max(140).meta({ label: 'Item Name', inList: true }),
    quantity: z.int().min(0).max(1_000_000_000).meta({ label: 'Quantity', inList: true }).default(0),
    price: z.number().min(0).max(1e12).meta({ label: 'Price', type: 'currency' }).default(0),
  }),
});

/** `stock.Warehouse`: a place items are kept. */
export const Warehouse = defineDocType({
  name: 'stock.Warehouse',
  label: 'Warehouse',
  titleField: 'warehouse_name',
  namePrefix: 'WH',
  model: z.object({
    warehouse_name: z.string().trim().min(1).max(140).meta({ label: 'Warehouse Name', inList: true }),
    location: z.string().trim().max(140).meta({ label: 'Location', inList: true }).optional(),
  }),
});
