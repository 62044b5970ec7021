import { defineDocType, z } from '../../../src/app';
import { PHONE_PATTERN } from './ui/customer-rules';

/** Customer statuses (a select field). */
export const CUSTOMER_STATUSES = ['Active', 'Inactive', 'Prospect'] as const;

/**
 * `crm.Customer`: a customer; `email` and `phone` are personal data (the `pii` flag,
 * docs/security.md#field-flags).
 */
export const Customer = defineDocType({
  name: 'crm.Customer',
  label: 'Customer',
  titleField: 'customer_name',
  namePrefix: 'CUST',
  model: z.object({
    customer_name: z.string().trim().min(1).max(140).meta({ label: 'Customer Name', inList: true }),
    email: z.email().max(254).meta({ label: 'Email', pii: true }).optional(),
    phone: z
      .string()
      // The same pattern crm's Customer form checks with, so both accept the same numbers.
      .regex(PHONE_PATTERN)
      .meta({ label: 'Phone', type: 'phone', pii: true })
      .optional(),
    // Indexed: the home card and `crm.api.customer_count` count customers by status.
    status: z.enum(CUSTOMER_STATUSES).meta({ label: 'Status', inList: true, index: true }).default('Active'),
  }),
});

/** `crm.Lead`: a prospective customer and where it came from. */
export const Lead = defineDocType({
  name: 'crm.Lead',
  label: 'Lead',
  titleField: 'lead_name',
  namePrefix: 'LEAD',
  model: z.object({
    lead_name: z.string().trim().min(1).max(140).meta({ label: 'Lead Name', inList: true }),
    source: z.string().trim().max(140).meta({ label: 'Source', inList: true }).optional(),
  }),
});
