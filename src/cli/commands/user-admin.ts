/** A user as `m user list` and the Users page show it. */
export interface UserSummary {
  name: string;
  roles: string[];
  enabled: boolean;
}

/**
 * What `m user` does, against a stopped server's data directory ({@link openOfflineUserAdmin}) or a running
 * server's API ({@link RemoteUserAdmin}). Every method throws an `Error` with a `code` on failure.
 */
export interface UserAdmin {
  add(name: string, password: string, roles: readonly string[]): Promise<void>;
  list(): Promise<UserSummary[]>;
  setRoles(name: string, roles: readonly string[]): Promise<void>;
  /** Sets a new password; the user's sessions, bearer tokens and API keys are revoked. */
  setPassword(name: string, password: string): Promise<void>;
  /** Disables the user; their sessions, bearer tokens and API keys are revoked. */
  disable(name: string): Promise<void>;
  /** Lets a disabled user sign in again. */
  enable(name: string): Promise<void>;
  /** The roles worth giving: the platform's own and those the permission rules in force name. */
  knownRoles(): Promise<string[]>;
  close(): Promise<void>;
}

/** Paths of the users API (System Manager only; docs/permissions.md#users). */
export { USERS_PATHS as USERS_API } from '../../protocol';
