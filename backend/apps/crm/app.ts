import { defineApp } from '../../../src/app';
import { customerCount, leadCount, ping } from './api';
import { Customer, Lead } from './doctypes';

/** The sample CRM app: customers (with personal data) and leads. */
export const crmApp = defineApp({
  name: 'crm',
  label: 'CRM',
  doctypes: [Customer, Lead],
  methods: {
    'crm.api.ping': ping,
    'crm.api.customer_count': customerCount,
    'crm.api.lead_count': leadCount,
  },
  menus: [
    { label: 'Customers', doctype: Customer.name },
    { label: 'Leads', doctype: Lead.name },
  ],
  // Sales Users work with customers and leads but see no personal data and delete nothing; Support Agents
  // look customers up (without personal data) when answering tickets.
  permissions: {
    [Customer.name]: [
      { role: 'Sales User', read: true, create: true, write: true },
      { role: 'Sales Manager', read: true, create: true, write: true, delete: true, read_pii: true },
      { role: 'Support Agent', read: true },
    ],
    [Lead.name]: [
      { role: 'Sales User', read: true, create: true, write: true },
      { role: 'Sales Manager', read: true, create: true, write: true, delete: true, read_pii: true },
    ],
  },
});
