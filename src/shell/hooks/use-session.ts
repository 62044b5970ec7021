import { useSyncExternalStore } from 'react';
import type { SessionState } from '../platform/session';
import { usePlatform } from './use-platform';

/** The Desk's session state (signed in / out). */
export function useSession(): SessionState {
  const { session } = usePlatform();
  return useSyncExternalStore(session.subscribe, session.getSnapshot);
}
