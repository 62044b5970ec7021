import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { fetchWithCredentials } from '../../sdk/http';
import type { DeskPlatform } from '../platform/create-platform';
import {
  type DeskOperation,
  type PermissionsState,
  PermissionsStore,
  permits,
  SYSTEM_MANAGER_ROLE,
  WHOAMI_PATH,
  type WhoAmI,
} from '../platform/permissions';
import type { SessionState } from '../platform/session';
import { usePlatform } from './use-platform';
import { useSession } from './use-session';

const stores = new WeakMap<DeskPlatform, PermissionsStore>();

/** The permissions store of a platform (one per Desk), created on first use. */
export function permissionsStoreOf(platform: DeskPlatform): PermissionsStore {
  let store = stores.get(platform);
  if (!store) {
    store = new PermissionsStore(async () => {
      const answer = await fetchWithCredentials<{ message: WhoAmI }>(
        `${platform.config.gatewayUrl}${WHOAMI_PATH}`,
      );
      return answer.message;
    });
    stores.set(platform, store);
  }
  return store;
}

/** What {@link usePermissions} returns. */
export interface Permissions {
  state: PermissionsState;
  /** True once whoami answered. */
  ready: boolean;
  roles: string[];
  isSystemManager: boolean;
  /** True when the user may perform `operation` on `docType` (false until known). */
  can(docType: string, operation: DeskOperation): boolean;
}

/**
 * The signed-in user's roles and permissions, loaded after each sign-in and forgotten on sign-out, for
 * hiding navigation, buttons and fields the user may not use.
 */
export function usePermissions(): Permissions {
  const platform = usePlatform();
  const session = useSession();
  const store = permissionsStoreOf(platform);
  const fetched = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const signedIn = session.status === 'signed-in';
  const user = session.status === 'signed-in' ? session.user : undefined;
  // The session already holds whoami's answer (asked at boot and after each sign-in); only a session that
  // carries no roles (a server that does not report them with the session) asks on its own.
  const known = useMemo(() => whoamiOf(session), [session]);
  useEffect(() => {
    if (!signedIn) store.clear();
    else if (!known) store.ensure(user ?? '(current user)');
  }, [store, signedIn, user, known]);
  const state: PermissionsState = known ? { status: 'ready', whoami: known } : fetched;
  const roles = state.status === 'ready' ? state.whoami.roles : [];
  return {
    state,
    ready: state.status === 'ready',
    roles,
    isSystemManager: roles.includes(SYSTEM_MANAGER_ROLE),
    can: (docType, operation) => permits(state, docType, operation),
  };
}

/** whoami's answer as the session holds it, or undefined when the session carries no roles and permissions. */
function whoamiOf(session: SessionState): WhoAmI | undefined {
  if (session.status !== 'signed-in' || !session.user || !session.roles || !session.permissions)
    return undefined;
  return {
    user: session.user,
    full_name: session.fullName,
    roles: session.roles,
    permissions: session.permissions as WhoAmI['permissions'],
  };
}
