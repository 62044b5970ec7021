import { z } from 'zod';
import { defineRpcMethod } from '../types';
import { Ticket } from './doctypes';

/** `support.api.open_count`: how many tickets are not closed. */
export const openCount = defineRpcMethod({
  description: 'Number of tickets whose status is not Closed.',
  roles: ['Support Agent'],
  kwargs: z.object({}),
  async handler({ ctx }) {
    const { rows } = await ctx.db.query<{ count: string | number }>(
      `SELECT count(*) AS count FROM records WHERE doctype = $1 AND data->>'status' <> 'Closed'`,
      [Ticket.name],
    );
    return Number(rows[0]?.count ?? 0);
  },
});
