// The async boundary Module Federation needs: the share scope (react, refine, ...) is initialised before any
// shared module is evaluated, so the host and every remote agree on one copy.
import('./bootstrap');
