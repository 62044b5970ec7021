import { defineDocType, z } from '../../../src/app';

/** `support.Ticket`: a customer's support request; `customer` links to a `crm.Customer` (another service). */
export const Ticket = defineDocType({
  name: 'support.Ticket',
  label: 'Ticket',
  titleField: 'subject',
  namePrefix: 'TKT',
  model: z.object({
    subject: z.string().trim().min(1).max(140).meta({ label: 'Subject', inList: true }),
    customer: z
      .string()
      .trim()
      .min(1)
      .max(140)
      .meta({ label: 'Customer', link: 'crm.Customer', inList: true })
      .optional(),
    description: z.string().trim().max(5000).meta({ label: 'Description', type: 'text' }).optional(),
    status: z.enum(['Open', 'Replied', 'Closed']).meta({ label: 'Status', inList: true }).default('Open'),
    priority: z.enum(['Low', 'Medium', 'High']).meta({ label: 'Priority', inList: true }).default('Medium'),
    due_date: z.iso.date().meta({ label: 'Due date', type: 'date' }).optional(),
    urgent: z.boolean().meta({ label: 'Urgent' }).default(false),
  }),
});
