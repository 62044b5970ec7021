import type { AuthStore } from './auth-store';

interface Grant {
  user: string;
  expiresAt: number;
}

/**
 * The auth store held in memory: the offline mocks' users and sessions, gone when the page (or test) ends.
 * Same rules as the database store: lookups find only enabled users, deleting a user is not offered.
 */
export class MemoryAuthStore implements AuthStore {
  readonly #users = new Map<string, { passwordHash: string; enabled: boolean }>();
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
    if (this.#users.has(name)) return false;
    this.#users.set(name, { passwordHash, enabled: true });
    return true;
  }

  async passwordHash(name: string): Promise<string | undefined> {
    return this.#enabled(name) ? this.#users.get(name)!.passwordHash : undefined;
  }

  async setPasswordHash(name: string, passwordHash: string): Promise<void> {
    const user = this.#users.get(name);
    if (user) user.passwordHash = passwordHash;
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
}
