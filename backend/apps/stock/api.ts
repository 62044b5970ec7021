import { z } from 'zod';
import { defineRpcMethod } from '../types';
import { Item } from './doctypes';

/** `stock.api.ping`: answers `"pong"`. */
export const ping = defineRpcMethod({
  description: 'Answers "pong".',
  roles: ['Stock User', 'Stock Manager'],
  kwargs: z.object({}),
  handler: () => 'pong',
});

/** `stock.api.total_quantity`: the quantity on hand summed over all items, or over the given item codes. */
export const totalQuantity = defineRpcMethod({
  description: 'Sum of quantity over all items, or over the given item codes.',
  roles: ['Stock User', 'Stock Manager'],
  kwargs: z.object({ item_codes: z.array(z.string().max(140)).max(500).optional() }),
  async handler({ ctx, kwargs }) {
    const codes = kwargs.item_codes;
    const { rows } = await ctx.db.query<{ total: string | number | null }>(
      `SELECT COALESCE(SUM((data->>'quantity')::numeric), 0) AS total FROM records
        WHERE doctype = $1 AND ($2::text[] IS NULL OR data->>'item_code' = ANY($2::text[]))`,
      [Item.name, codes ?? null],
    );
    return Number(rows[0]?.total ?? 0);
  },
});

/** `stock.api.stock_value`: the value of the stock on hand, sum of quantity x price. */
export const stockValue = defineRpcMethod({
  description: 'Sum of quantity times price over all items.',
  roles: ['Stock User', 'Stock Manager'],
  kwargs: z.object({}),
  async handler({ ctx }) {
    const { rows } = await ctx.db.query<{ total: string | number | null }>(
      `SELECT COALESCE(SUM((data->>'quantity')::numeric * (data->>'price')::numeric), 0) AS total
         FROM records WHERE doctype = $1`,
      [Item.name],
    );
    return Number(rows[0]?.total ?? 0);
  },
});
