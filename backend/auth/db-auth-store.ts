import type { Database } from '../db/database';
import type { AuthStore } from './auth-store';
import { AUTH_SCHEMA } from './schema';

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
      `INSERT INTO auth_users (name, password_hash, created_at) VALUES ($1, $2, $3)
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

  async addSession(idHash: string, user: string, expiresAt: number): Promise<void> {
    await this.db.query('INSERT INTO auth_sessions (id_hash, user_name, expires_at) VALUES ($1, $2, $3)', [
      idHash,
      user,
      expiresAt,
    ]);
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
    const { rows } = await this.db.query<{ user_name: string; expires_at: unknown }>(
      `SELECT s.user_name, s.expires_at FROM auth_sessions s JOIN auth_users u ON u.name = s.user_name
       WHERE s.id_hash = $1 AND u.enabled`,
      [idHash],
    );
    return rows[0] && { user: rows[0].user_name, expiresAt: Number(rows[0].expires_at) };
  }

  async addToken(idHash: string, user: string, expiresAt: number): Promise<void> {
    await this.db.query('INSERT INTO auth_tokens (id_hash, user_name, expires_at) VALUES ($1, $2, $3)', [
      idHash,
      user,
      expiresAt,
    ]);
  }

  async token(idHash: string) {
    const { rows } = await this.db.query<{ user_name: string; expires_at: unknown }>(
      `SELECT t.user_name, t.expires_at FROM auth_tokens t JOIN auth_users u ON u.name = t.user_name
       WHERE t.id_hash = $1 AND u.enabled`,
      [idHash],
    );
    return rows[0] && { user: rows[0].user_name, expiresAt: Number(rows[0].expires_at) };
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
}
