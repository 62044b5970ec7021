/**
 * The crm remote's `./views` module (docs/mfe-teams.md#writing-a-ui-remote): its own Customer form replaces
 * the Desk's generic form for `crm.Customer`, and a dashboard widget shows the customer count.
 */
import type { RemoteViews } from '../../../../src/shell/remote-contract';
import { CustomerCountWidget } from './CustomerCountWidget';
import { CustomerForm } from './CustomerForm';

const crmViews: RemoteViews = {
  views: { 'crm.Customer': { form: CustomerForm } },
  widgets: [{ id: 'customer-count', title: 'Customers', component: CustomerCountWidget }],
};

export default crmViews;
