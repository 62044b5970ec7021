import { defineRpcMethod, z } from '../../../src/app';
import { CUSTOMER_STATUSES, Customer, Lead } from './doctypes';

/** `crm.api.ping`: answers `"pong"`; a cheap authenticated round trip for health checks and load tests. */
export const ping = defineRpcMethod({
  description: 'Answers "pong".',
  roles: ['Sales User', 'Sales Manager'],
  kwargs: z.object({}),
  returns: z.literal('pong'),
  handler: () => 'pong' as const,
});

/** `crm.api.customer_count`: the number of customers, optionally of one status. */
export const customerCount = defineRpcMethod({
  description: 'Number of customers, optionally filtered by status.',
  // Support Agents read customers (without personal data), so the home card counts them for them too.
  roles: ['Sales User', 'Sales Manager', 'Support Agent'],
  kwargs: z.object({ status: z.enum(CUSTOMER_STATUSES).optional() }),
  returns: z.number().int().nonnegative(),
  handler: ({ records, kwargs }) =>
    records.count(Customer.name, kwargs.status ? { status: kwargs.status } : {}),
});

/** `crm.api.lead_count`: the number of leads, optionally from one source. */
export const leadCount = defineRpcMethod({
  description: 'Number of leads, optionally filtered by source.',
  roles: ['Sales User', 'Sales Manager'],
  kwargs: z.object({ source: z.string().max(140).optional() }),
  returns: z.number().int().nonnegative(),
  handler: ({ records, kwargs }) =>
    records.count(Lead.name, kwargs.source !== undefined ? { source: kwargs.source } : {}),
});
