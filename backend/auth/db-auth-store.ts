import type { Database } from '../db/database';
import type { AuthStore } from './auth-store';
import { AUTH_SCHEMA } from './schema';

/** The tables of credentials that expire and are found by the hash of their id: sessions, bearer tokens. */
type ExpiringTable = 'auth_sessions' | 'auth_tokens';

/** The auth store on the platform database (tables in ./schema.ts), shared by every process using it. */
export class DbAuthStore implements AuthStore {
  constructor(private readonly db: Pick<Database, 'query' | 'exec'>) {}

  async init(fresh: string): Promise<string> {
    await this.db.exec(AUTH_SCHEMA);
    await this.db.query(
      `INSERT INTO auth_secrets (name, value) VALUES ('csrf', $1) ON CONFLICT (name) DO NOTHING`,
      [fresh],
    );
    const { rows } = await this.db.query<{ value: string }>(
      `SELECT value FROM auth_secrets WHERE name = 'csrf'`,
    );
    return rows[0]!.value;
  }

  async createUser(name: string, passwordHash: string, createdAt: number): Promise<boolean> {
    const { rows } = await this.db.query(
      // Names are unique regardless of case (docs/security.md#auth): `administrator` beside `Administrator`
      // would share its sign-in counters and read as the same account to a person.
      `INSERT INTO auth_users (name, password_hash, created_at)
       SELECT $1::text, $2::text, $3::bigint
       WHERE NOT EXISTS (SELECT 1 FROM auth_users WHERE lower(name) = lower($1::text))
       ON CONFLICT (name) DO NOTHING RETURNING name`,
      [name, passwordHash, createdAt],
    );
    return rows.length > 0;
  }

  async passwordHash(name: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM auth_users WHERE name = $1 AND enabled',
      [name],
    );
    return rows[0]?.password_hash;
  }

  async setPasswordHash(name: string, passwordHash: string): Promise<void> {
    await this.db.query('UPDATE auth_users SET password_hash = $2 WHERE name = $1', [name, passwordHash]);
  }

  async replacePasswordHash(name: string, previous: string, next: string): Promise<boolean> {
    const { rows } = await this.db.query(
      'UPDATE auth_users SET password_hash = $3 WHERE name = $1 AND password_hash = $2 RETURNING name',
      [name, previous, next],
    );
    return rows.length > 0;
  }

  async addSession(idHash: string, user: string, expiresAt: number): Promise<void> {
    await this.#addExpiring('auth_sessions', idHash, user, expiresAt);
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.query('DELETE FROM auth_sessions WHERE id_hash = $1', [idHash]);
  }

  async deleteOtherSessions(user: string, keepIdHash: string): Promise<void> {
    await this.db.query('DELETE FROM auth_sessions WHERE user_name = $1 AND id_hash <> $2', [
      user,
      keepIdHash,
    ]);
  }

  async session(idHash: string) {
    return this.#expiring('auth_sessions', idHash);
  }

  async addToken(idHash: string, user: string, expiresAt: number): Promise<void> {
    await this.#addExpiring('auth_tokens', idHash, user, expiresAt);
  }

  async token(idHash: string) {
    return this.#expiring('auth_tokens', idHash);
  }

  async addApiKey(apiKey: string, secretHash: string, user: string, createdAt: number): Promise<void> {
    await this.db.query(
      'INSERT INTO auth_api_keys (api_key, secret_hash, user_name, created_at) VALUES ($1, $2, $3, $4)',
      [apiKey, secretHash, user, createdAt],
    );
  }

  async apiKey(apiKey: string) {
    const { rows } = await this.db.query<{ user_name: string; secret_hash: string }>(
      `SELECT k.user_name, k.secret_hash FROM auth_api_keys k JOIN auth_users u ON u.name = k.user_name
       WHERE k.api_key = $1 AND u.enabled`,
      [apiKey],
    );
    return rows[0] && { user: rows[0].user_name, secretHash: rows[0].secret_hash };
  }

  async hasUser(name: string): Promise<boolean> {
    const { rows } = await this.db.query('SELECT 1 FROM auth_users WHERE name = $1', [name]);
    return rows.length > 0;
  }

  async listUsers() {
    const { rows } = await this.db.query<{ name: string; enabled: boolean; role: string | null }>(
      `SELECT u.name, u.enabled, r.role FROM auth_users u LEFT JOIN auth_user_roles r ON r.user_name = u.name
       ORDER BY u.name, r.role`,
    );
    const users = new Map<string, { name: string; roles: string[]; enabled: boolean }>();
    for (const row of rows) {
      const user = users.get(row.name) ?? { name: row.name, roles: [], enabled: row.enabled };
      users.set(row.name, user);
      if (row.role) user.roles.push(row.role);
    }
    return [...users.values()];
  }

  async roles(name: string): Promise<string[]> {
    const { rows } = await this.db.query<{ role: string }>(
      'SELECT role FROM auth_user_roles WHERE user_name = $1 ORDER BY role',
      [name],
    );
    return rows.map((r) => r.role);
  }

  async setRoles(name: string, roles: readonly string[]): Promise<void> {
    await this.db.query('DELETE FROM auth_user_roles WHERE user_name = $1', [name]);
    for (const role of new Set(roles)) {
      await this.db.query('INSERT INTO auth_user_roles (user_name, role) VALUES ($1, $2)', [name, role]);
    }
  }

  async setEnabled(name: string, enabled: boolean): Promise<void> {
    await this.db.query('UPDATE auth_users SET enabled = $2 WHERE name = $1', [name, enabled]);
  }

  async revokeCredentials(name: string, keepSessionIdHash: string): Promise<void> {
    await this.deleteOtherSessions(name, keepSessionIdHash);
    await this.db.query('DELETE FROM auth_tokens WHERE user_name = $1', [name]);
    await this.db.query('DELETE FROM auth_api_keys WHERE user_name = $1', [name]);
  }

  async #addExpiring(table: ExpiringTable, idHash: string, user: string, expiresAt: number): Promise<void> {
    await this.db.query(`INSERT INTO ${table} (id_hash, user_name, expires_at) VALUES ($1, $2, $3)`, [
      idHash,
      user,
      expiresAt,
    ]);
  }

  /** The enabled user holding the credential and when it expires; a disabled user's credentials find nothing. */
  async #expiring(
    table: ExpiringTable,
    idHash: string,
  ): Promise<{ user: string; expiresAt: number } | undefined> {
    const { rows } = await this.db.query<{ user_name: string; expires_at: unknown }>(
      `SELECT c.user_name, c.expires_at FROM ${table} c JOIN auth_users u ON u.name = c.user_name
       WHERE c.id_hash = $1 AND u.enabled`,
      [idHash],
    );
    return rows[0] && { user: rows[0].user_name, expiresAt: Number(rows[0].expires_at) };
  }
}
