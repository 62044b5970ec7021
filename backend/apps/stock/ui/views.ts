/** The stock remote's `./views` module: a dashboard widget summarising the items in stock. */
import type { RemoteViews } from '../../../../src/shell/remote-contract';
import { StockSummary } from './StockSummary';

const stockViews: RemoteViews = {
  widgets: [{ id: 'stock-summary', title: 'Stock', component: StockSummary }],
};

export default stockViews;
