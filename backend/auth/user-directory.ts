/** A user as the users API and `m user list` show it (never a password hash). */
export interface UserRecord {
  name: string;
  roles: string[];
  enabled: boolean;
}

/**
 * User administration (docs/permissions.md#users): what the users API, the Desk's Users page and `m user`
 * do. Every change that could leave a stolen credential usable revokes the user's sessions, bearer tokens and
 * API keys.
 */
export interface UserDirectory {
  /** Adds a user with roles; 409 `user_exists` when the name is taken. */
  addUser(name: string, password: string, roles: readonly string[]): Promise<void>;
  listUsers(): Promise<UserRecord[]>;
  /** Replaces a user's roles (they apply to every credential of the user within the credential cache). */
  setRoles(name: string, roles: readonly string[]): Promise<void>;
  /** Sets a new password and revokes the user's sessions, bearer tokens and API keys. */
  setPassword(name: string, password: string): Promise<void>;
  /** Disables the user and revokes their sessions, bearer tokens and API keys. */
  disableUser(name: string): Promise<void>;
  /** Lets a disabled user sign in again with their password; what the disable revoked stays revoked. */
  enableUser(name: string): Promise<void>;
}
