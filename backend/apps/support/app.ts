import { defineApp } from '../../../src/app';
import { openCount } from './api';
import { Ticket } from './doctypes';

/**
 * The sample support app: tickets, each linked to a customer of the crm app (another service). A data-only
 * service (no UI remote: the Desk shows its generic views), installed by default.
 */
export const supportApp = defineApp({
  name: 'support',
  label: 'Support',
  doctypes: [Ticket],
  methods: { 'support.api.open_count': openCount },
  menus: [{ label: 'Tickets', doctype: Ticket.name }],
  // Support Agents answer tickets; closing one is a status, so they need no delete.
  permissions: {
    [Ticket.name]: [{ role: 'Support Agent', read: true, create: true, write: true, read_pii: true }],
  },
});
