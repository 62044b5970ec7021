import { useCallback, useSyncExternalStore } from 'react';
import { type DeskRoute, formatRoute, parseRoute } from '../routing/route';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

const getHash = () => window.location.hash;

/** The current Desk route (from the URL hash) and a `navigate` that pushes a history entry. */
export function useRoute(): { route: DeskRoute; navigate: (to: DeskRoute) => void } {
  const hash = useSyncExternalStore(subscribe, getHash, () => '');
  const navigate = useCallback((to: DeskRoute) => {
    window.location.hash = formatRoute(to);
  }, []);
  return { route: parseRoute(hash), navigate };
}
