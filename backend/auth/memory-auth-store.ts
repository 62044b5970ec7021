import type { AuthStore } from './auth-store';

/** Who a session or token is for, and until when (epoch ms). */
export interface Grant {
  user: string;
  expiresAt: number;
}

/**
 * The auth store held in memory: the offline mocks' users and sessions, gone when the page (or test) ends.
 * Same rules as the database store: lookups find only enabled users, deleting a user is not offered.
 */
export class MemoryAuthStore implements AuthStore {
  readonly #users = new Map<string, { passwordHash: string; enabled: boolean; roles: string[] }>();
  readonly #sessions = new Map<string, Grant>();
  readonly #tokens = new Map<string, Grant>();
  readonly #apiKeys = new Map<string, { user: string; secretHash: string }>();
  #csrfSecret: string | undefined;

  #enabled(user: string): boolean {
    return this.#users.get(user)?.enabled === true;
  }

  async init(fresh: string): Promise<string> {
    this.#csrfSecret ??= fresh;
    return this.#csrfSecret;
  }

  async createUser(name: string, passwordHash: string): Promise<boolean> {
    // Unique regardless of case, as in the database store.
    const lower = name.toLowerCase();
    for (const existing of this.#users.keys()) if (existing.toLowerCase() === lower) return false;
    this.#users.set(name, { passwordHash, enabled: true, roles: [] });
    return true;
  }

  async passwordHash(name: string): Promise<string | undefined> {
    return this.#enabled(name) ? this.#users.get(name)!.passwordHash : undefined;
  }

  async setPasswordHash(name: string, passwordHash: string): Promise<void> {
    const user = this.#users.get(name);
    if (user) user.passwordHash = passwordHash;
  }

  async replacePasswordHash(name: string, previous: string, next: string): Promise<boolean> {
    const user = this.#users.get(name);
    if (user?.passwordHash !== previous) return false;
    user.passwordHash = next;
    return true;
  }

  async addSession(idHash: string, user: string, expiresAt: number): Promise<void> {
    this.#sessions.set(idHash, { user, expiresAt });
  }

  async deleteSession(idHash: string): Promise<void> {
    this.#sessions.delete(idHash);
  }

  async deleteOtherSessions(user: string, keepIdHash: string): Promise<void> {
    for (const [id, grant] of this.#sessions) {
      if (grant.user === user && id !== keepIdHash) this.#sessions.delete(id);
    }
  }

  async session(idHash: string): Promise<Grant | undefined> {
    const grant = this.#sessions.get(idHash);
    return grant && this.#enabled(grant.user) ? { ...grant } : undefined;
  }

  async addToken(idHash: string, user: string, expiresAt: number): Promise<void> {
    this.#tokens.set(idHash, { user, expiresAt });
  }

  async token(idHash: string): Promise<Grant | undefined> {
    const grant = this.#tokens.get(idHash);
    return grant && this.#enabled(grant.user) ? { ...grant } : undefined;
  }

  async addApiKey(apiKey: string, secretHash: string, user: string): Promise<void> {
    this.#apiKeys.set(apiKey, { user, secretHash });
  }

  async apiKey(apiKey: string): Promise<{ user: string; secretHash: string } | undefined> {
    const key = this.#apiKeys.get(apiKey);
    return key && this.#enabled(key.user) ? { ...key } : undefined;
  }

  async hasUser(name: string): Promise<boolean> {
    return this.#users.has(name);
  }

  async listUsers() {
    return [...this.#users]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, u]) => ({ name, roles: [...u.roles], enabled: u.enabled }));
  }

  async roles(name: string): Promise<string[]> {
    return [...(this.#users.get(name)?.roles ?? [])];
  }

  async setRoles(name: string, roles: readonly string[]): Promise<void> {
    const user = this.#users.get(name);
    if (user) user.roles = [...new Set(roles)].sort();
  }

  async setEnabled(name: string, enabled: boolean): Promise<void> {
    const user = this.#users.get(name);
    if (user) user.enabled = enabled;
  }

  async revokeCredentials(name: string, keepSessionIdHash: string): Promise<void> {
    for (const [id, grant] of this.#sessions) {
      if (grant.user === name && id !== keepSessionIdHash) this.#sessions.delete(id);
    }
    for (const [id, grant] of this.#tokens) if (grant.user === name) this.#tokens.delete(id);
    for (const [key, value] of this.#apiKeys) if (value.user === name) this.#apiKeys.delete(key);
  }

  /** Users, sessions, tokens, API keys and the CSRF secret as plain data (kept across offline reloads). */
  snapshot(): MemoryAuthSnapshot {
    return {
      users: [...this.#users].map(([name, u]) => [name, { ...u, roles: [...u.roles] }]),
      sessions: [...this.#sessions].map(([id, g]) => [id, { ...g }]),
      tokens: [...this.#tokens].map(([id, g]) => [id, { ...g }]),
      apiKeys: [...this.#apiKeys].map(([key, k]) => [key, { ...k }]),
      ...(this.#csrfSecret === undefined ? {} : { csrfSecret: this.#csrfSecret }),
    };
  }

  /** Replaces everything the store holds with `snapshot`'s. */
  restore(snapshot: MemoryAuthSnapshot): void {
    const fill = <V>(map: Map<string, V>, entries: [string, V][]) => {
      map.clear();
      for (const [key, value] of entries) map.set(key, structuredClone(value));
    };
    fill(this.#users, snapshot.users);
    fill(this.#sessions, snapshot.sessions);
    fill(this.#tokens, snapshot.tokens);
    fill(this.#apiKeys, snapshot.apiKeys);
    this.#csrfSecret = snapshot.csrfSecret;
  }
}

/** What {@link MemoryAuthStore.snapshot} returns. */
export interface MemoryAuthSnapshot {
  users: [name: string, user: { passwordHash: string; enabled: boolean; roles: string[] }][];
  sessions: [idHash: string, grant: Grant][];
  tokens: [idHash: string, grant: Grant][];
  apiKeys: [apiKey: string, key: { user: string; secretHash: string }][];
  csrfSecret?: string;
}
