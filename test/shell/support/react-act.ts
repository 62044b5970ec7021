/**
 * Tells React the DOM tests run inside `act()` (React Testing Library's own setup does the same), so state
 * updates flush before assertions and React does not warn about updates outside `act`.
 */
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
