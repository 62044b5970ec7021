import { z } from 'zod';
import { defineDocType } from '../../doctypes/define-doctype';

/** `support.Ticket`: a customer's support request. */
export const Ticket = defineDocType({
  name: 'support.Ticket',
  label: 'Ticket',
  titleField: 'subject',
  namePrefix: 'TKT',
  model: z.object({
    subject: z.string().trim().min(1).max(140).meta({ label: 'Subject', inList: true }),
    description: z.string().trim().max(5000).meta({ label: 'Description' }).optional(),
    status: z.enum(['Open', 'Replied', 'Closed']).meta({ label: 'Status', inList: true }).default('Open'),
    priority: z.enum(['Low', 'Medium', 'High']).meta({ label: 'Priority', inList: true }).default('Medium'),
  }),
});
