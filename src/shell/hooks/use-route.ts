import { useCallback, useMemo, useSyncExternalStore } from 'react';
import { leaveGuard } from '../routing/leave-guard';
import { type DeskRoute, formatRoute, parseRoute } from '../routing/route';

// The URL's hash, as the leave guard lets it through: a form with unsaved changes holds a route change
// until the user chose to save, discard or stay (routing/leave-guard.ts).
const subscribe = (onChange: () => void): (() => void) => leaveGuard().subscribe(onChange);
const getHash = () => leaveGuard().getSnapshot().hash;

/** How {@link useRoute}'s `navigate` changes the history. */
export interface NavigateOptions {
  /** Replace the current history entry (list state changes) instead of adding one. */
  replace?: boolean;
}

/** Navigates to `to`: a new history entry, or (with `replace`) in place of the current one. */
export function navigateTo(to: DeskRoute, options: NavigateOptions = {}): void {
  const hash = formatRoute(to);
  if (window.location.hash === hash) return;
  if (options.replace) window.location.replace(hash);
  else window.location.hash = hash;
  leaveGuard().followUrl();
}

/** The current Desk route (from the URL hash) and a `navigate` that pushes (or replaces) a history entry. */
export function useRoute(): {
  route: DeskRoute;
  navigate: (to: DeskRoute, options?: NavigateOptions) => void;
} {
  const hash = useSyncExternalStore(subscribe, getHash, () => '');
  const navigate = useCallback((to: DeskRoute, options?: NavigateOptions) => navigateTo(to, options), []);
  const route = useMemo(() => parseRoute(hash), [hash]);
  return { route, navigate };
}
