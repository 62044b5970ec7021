/**
 * The signed-in state of the Desk. The server owns the session (a cookie); the Desk only knows what it
 * observed: a login that succeeded, a CSRF token kept from an earlier login in this tab, or a 401 on any data
 * request, which means the session is gone and the login screen must show again.
 */
import { SnapshotStore } from '../../sdk/store';

/** What the Desk knows about the session. */
export type SessionState =
  | { status: 'signed-in'; user?: string }
  | { status: 'signed-out'; reason?: 'expired' };

/** Observable session state (for `useSyncExternalStore`). */
export class SessionStore extends SnapshotStore<SessionState> {
  #state: SessionState;

  constructor(initial: SessionState) {
    super();
    this.#state = initial;
  }

  /** Records a successful login. */
  signedIn(user?: string): void {
    this.#set({ status: 'signed-in', user });
  }

  /** Records a logout, or (with `expired`) a 401 seen on a request. */
  signedOut(reason?: 'expired'): void {
    if (this.#state.status === 'signed-out') return;
    this.#set({ status: 'signed-out', reason });
  }

  /** The state itself: it is replaced, never mutated, on every change. */
  protected override createSnapshot(): SessionState {
    return this.#state;
  }

  #set(state: SessionState): void {
    this.#state = state;
    this.notify();
  }
}

/** True for an error the server raised because the request carried no valid credential. */
export function isUnauthorized(error: unknown): boolean {
  const e = error as { status?: unknown; statusCode?: unknown; code?: unknown } | null;
  return e?.status === 401 || e?.statusCode === 401 || e?.code === 'unauthorized';
}
