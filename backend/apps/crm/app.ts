import type { InstalledApp } from '../types';
import { customerCount, leadCount, ping } from './api';
import { Customer, Lead } from './doctypes';

/** The sample CRM app: customers (with personal data) and leads. */
export const crmApp: InstalledApp = {
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
};
