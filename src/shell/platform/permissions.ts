/**
 * What the signed-in user may do, as `GET /api/method/whoami` answers it (docs/permissions.md#who-am-i):
 * the user's roles and, per DocType, `read`, `create`, `write`, `delete` and `read_pii`. The Desk hides what
 * the user may not use; the server enforces it either way.
 */
import { SnapshotStore } from '../../sdk/store';

/** Operations the server grants per DocType. */
export type DeskOperation = 'read' | 'create' | 'write' | 'delete' | 'read_pii';

/** The `message` of `GET /api/method/whoami`. */
export interface WhoAmI {
  user: string;
  full_name?: string;
  csrf_token?: string;
  roles: string[];
  permissions: Record<string, Record<DeskOperation, boolean>>;
}

/** The role that may do everything (it manages users and permissions). */
export const SYSTEM_MANAGER_ROLE = 'System Manager';

/** Path of the who-am-I endpoint, under the gateway. */
export const WHOAMI_PATH = '/api/method/whoami';

/** The Desk's knowledge of the user's permissions. */
export type PermissionsState =
  | { status: 'unknown' }
  | { status: 'loading' }
  | { status: 'ready'; whoami: WhoAmI }
  | { status: 'error'; error: unknown };

/** Loads and holds the answer of whoami; `load` again after every sign-in. */
export class PermissionsStore extends SnapshotStore<PermissionsState> {
  #state: PermissionsState = { status: 'unknown' };
  #generation = 0;
  #loadedFor: string | undefined;

  constructor(private readonly fetchWhoAmI: () => Promise<WhoAmI>) {
    super();
  }

  /** Fetches whoami; a newer call wins over an older one still in flight. */
  async load(): Promise<void> {
    const generation = ++this.#generation;
    this.#set({ status: 'loading' });
    try {
      const whoami = await this.fetchWhoAmI();
      if (generation === this.#generation) this.#set({ status: 'ready', whoami });
    } catch (error) {
      if (generation === this.#generation) this.#set({ status: 'error', error });
    }
  }

  /**
   * Loads whoami once per signed-in user (`key`): the many components asking share one request; a new
   * user, or an earlier failure, loads again.
   */
  ensure(key: string): void {
    if (this.#loadedFor === key && this.#state.status !== 'error') return;
    this.#loadedFor = key;
    void this.load();
  }

  /** Forgets the user (sign-out). */
  clear(): void {
    if (this.#state.status === 'unknown') return;
    this.#loadedFor = undefined;
    this.#generation++;
    this.#set({ status: 'unknown' });
  }

  protected override createSnapshot(): PermissionsState {
    return this.#state;
  }

  #set(state: PermissionsState): void {
    this.#state = state;
    this.notify();
  }
}

/**
 * True when the state says the user may perform `operation` on `docType`. Unknown or failed states answer
 * false: the Desk shows an action only once it knows the server would allow it.
 */
export function permits(state: PermissionsState, docType: string, operation: DeskOperation): boolean {
  if (state.status !== 'ready') return false;
  if (state.whoami.roles.includes(SYSTEM_MANAGER_ROLE)) return true;
  return state.whoami.permissions[docType]?.[operation] === true;
}
