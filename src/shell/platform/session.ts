/**
 * The signed-in state of the Desk. The server owns the session (a cookie); at boot the Desk asks it who is
 * signed in (`GET /api/method/whoami`), so a reload keeps the user's name and a new tab of the same browser
 * is signed in too. Afterwards the Desk follows what it observes: a login that succeeded, a 401 on any
 * request (the session is gone: the sign-in screen shows again), and sign-in or sign-out in another tab.
 */
import { SnapshotStore } from '../../sdk/store';

/** What one user may do with one DocType, as `whoami` reports it. */
export interface DocTypePermissions {
  read: boolean;
  create: boolean;
  write: boolean;
  delete: boolean;
  read_pii?: boolean;
}

/** Who is signed in, as far as the Desk knows. */
export interface SessionUser {
  user: string;
  /** The name to show; the user name when the server sends none. */
  fullName?: string;
  roles?: string[];
  /** DocType -> permissions; absent when the server does not report them. */
  permissions?: Record<string, DocTypePermissions>;
}

/** What the Desk knows about the session. */
export type SessionState =
  | { status: 'checking' }
  | ({ status: 'signed-in' } & Partial<SessionUser>)
  | { status: 'signed-out'; reason?: 'expired' };

/** Observable session state (for `useSyncExternalStore`). */
export class SessionStore extends SnapshotStore<SessionState> {
  #state: SessionState;

  constructor(initial: SessionState) {
    super();
    this.#state = initial;
  }

  /** Records a successful login or a session the server confirmed; `who` is a user name or the whoami answer. */
  signedIn(who?: string | SessionUser): void {
    const user: Partial<SessionUser> = typeof who === 'string' ? { user: who } : (who ?? {});
    const next: SessionState = { status: 'signed-in' };
    for (const [key, value] of Object.entries(user)) {
      if (value !== undefined) (next as Record<string, unknown>)[key] = value;
    }
    this.#set(next);
  }

  /** Records a logout, or (with `expired`) a 401 seen on a request. */
  signedOut(reason?: 'expired'): void {
    if (this.#state.status === 'signed-out') return;
    this.#set(reason ? { status: 'signed-out', reason } : { status: 'signed-out' });
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
