// The async boundary Module Federation needs: the share scope (react, refine, ...) is initialised before any
// shared module is evaluated, so the host and every remote agree on one copy.
//
// React DOM first, then the Desk, each evaluated in a task of its own with the browser free in between: the
// page has painted by then (its header comes with the HTML), and one task running both would keep it from
// answering input for as long as the two together.
import('react-dom/client')
  .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
  .then(() => import('./bootstrap'));
