/**
 * The stock remote's `./views` module: a dashboard widget summarising the items in stock. The widget's code
 * (and the Refine hooks it uses) loads when the home page shows it, not when a stock list needs this module
 * only to learn that stock keeps the Desk's generic list (docs/mfe-teams.md#writing-a-ui-remote).
 */
import { lazy } from 'react';
import { defineRemote } from '../../../../src/remote';

const StockSummary = lazy(() => import('./StockSummary').then((m) => ({ default: m.StockSummary })));

export default defineRemote({
  widgets: [{ id: 'stock-summary', title: 'Stock', component: StockSummary }],
});
