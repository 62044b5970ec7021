/**
 * The crm remote's `./views` module (docs/mfe-teams.md#writing-a-ui-remote): its own Customer form replaces
 * the Desk's generic form for `crm.Customer`, and a dashboard widget shows the customer count. Each view's
 * code loads when a screen shows it, so a crm list (which keeps the generic list) loads only this table.
 */
import { lazy } from 'react';
import { defineRemote } from '../../../../src/remote';

const CustomerCountWidget = lazy(() =>
  import('./CustomerCountWidget').then((m) => ({ default: m.CustomerCountWidget })),
);
const CustomerForm = lazy(() => import('./CustomerForm').then((m) => ({ default: m.CustomerForm })));

export default defineRemote({
  views: { 'crm.Customer': { form: CustomerForm } },
  widgets: [{ id: 'customer-count', title: 'Customers', component: CustomerCountWidget }],
});
