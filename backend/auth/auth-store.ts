/**
 * Where the auth chain keeps users, sessions, API keys and bearer tokens. Secrets arrive here already hashed
 * (passwords by the PasswordHasher, session ids, tokens and API secrets as SHA-256), so no implementation
 * ever sees one in the clear. Lookups of sessions, tokens and keys only find rows of enabled users.
 * Implementations: `DbAuthStore` (the platform database) and `MemoryAuthStore` (the offline mocks).
 */
export interface AuthStore {
  /** Creates what the store needs (tables) and returns the CSRF secret, storing `fresh` on first start. */
  init(fresh: string): Promise<string>;
  /** Adds a user; false (and nothing changed) when the name exists. */
  createUser(name: string, passwordHash: string, createdAt: number): Promise<boolean>;
  /** The password hash of an enabled user, or undefined. */
  passwordHash(name: string): Promise<string | undefined>;
  /** Replaces a user's password hash. */
  setPasswordHash(name: string, passwordHash: string): Promise<void>;
  /**
   * Replaces a user's password hash only while it is still `previous`; false when it has changed meanwhile
   * (a password change between a sign-in's check and its rehash wins).
   */
  replacePasswordHash(name: string, previous: string, next: string): Promise<boolean>;
  addSession(idHash: string, user: string, expiresAt: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of `user` except the one with `keepIdHash`. */
  deleteOtherSessions(user: string, keepIdHash: string): Promise<void>;
  /** The enabled user of a session and when it expires, or undefined. */
  session(idHash: string): Promise<{ user: string; expiresAt: number } | undefined>;
  addToken(idHash: string, user: string, expiresAt: number): Promise<void>;
  /** The enabled user of a bearer token and when it expires, or undefined. */
  token(idHash: string): Promise<{ user: string; expiresAt: number } | undefined>;
  addApiKey(apiKey: string, secretHash: string, user: string, createdAt: number): Promise<void>;
  /** The enabled user of an API key and the hash of its secret, or undefined. */
  apiKey(apiKey: string): Promise<{ user: string; secretHash: string } | undefined>;
  /** True when a user of that name exists, enabled or not. */
  hasUser(name: string): Promise<boolean>;
  /** Every user with roles and whether enabled, sorted by name. */
  listUsers(): Promise<Array<{ name: string; roles: string[]; enabled: boolean }>>;
  /** A user's roles, sorted. */
  roles(name: string): Promise<string[]>;
  /** Replaces a user's roles. */
  setRoles(name: string, roles: readonly string[]): Promise<void>;
  /** Enables or disables a user (a disabled user's credentials are found by no lookup). */
  setEnabled(name: string, enabled: boolean): Promise<void>;
  /**
   * Revokes a user's credentials: every session but the one with `keepSessionIdHash` (none when empty), every
   * bearer token and every API key.
   */
  revokeCredentials(name: string, keepSessionIdHash: string): Promise<void>;
}
