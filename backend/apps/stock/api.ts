import { defineRpcMethod, z } from '../../../src/app';
import { Item } from './doctypes';

/** `stock.api.ping`: answers `"pong"`. */
export const ping = defineRpcMethod({
  description: 'Answers "pong".',
  roles: ['Stock User', 'Stock Manager'],
  kwargs: z.object({}),
  returns: z.literal('pong'),
  handler: () => 'pong' as const,
});

/** `stock.api.total_quantity`: the quantity on hand summed over all items, or over the given item codes. */
export const totalQuantity = defineRpcMethod({
  description: 'Sum of quantity over all items, or over the given item codes.',
  roles: ['Stock User', 'Stock Manager'],
  kwargs: z.object({ item_codes: z.array(z.string().max(140)).max(500).optional() }),
  returns: z.number(),
  async handler({ records, kwargs }) {
    const codes = kwargs.item_codes;
    return records.sum(Item.name, ['quantity'], {
      whereIn: codes ? { field: 'item_code', values: codes } : undefined,
    });
  },
});

/** `stock.api.stock_value`: the value of the stock on hand, sum of quantity x price. */
export const stockValue = defineRpcMethod({
  description: 'Sum of quantity times price over all items.',
  roles: ['Stock User', 'Stock Manager'],
  kwargs: z.object({}),
  returns: z.number(),
  handler: ({ records }) => records.sum(Item.name, ['quantity', 'price']),
});
