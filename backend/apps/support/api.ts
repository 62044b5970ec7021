import { defineRpcMethod, z } from '../../../src/app';
import { Ticket } from './doctypes';

/** `support.api.open_count`: how many tickets are not closed. */
export const openCount = defineRpcMethod({
  description: 'Number of tickets whose status is not Closed.',
  roles: ['Support Agent'],
  kwargs: z.object({}),
  returns: z.number().int().nonnegative(),
  async handler({ records }) {
    // Every ticket has a status (it defaults to Open), so the open ones are all but the closed ones.
    const [all, closed] = await Promise.all([
      records.count(Ticket.name),
      records.count(Ticket.name, { status: 'Closed' }),
    ]);
    return all - closed;
  },
});
