import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/database';
import type { Principal } from '../http/env';
import type { PresentedCredential } from './credentials';
import { sha256 } from './credentials';
import { hashPassword, verifyPassword } from './passwords';
import { AUTH_SCHEMA } from './schema';

/** The built-in administrator created on first start. */
export const ADMINISTRATOR = 'Administrator';

/** Options of {@link AuthService}. */
export interface AuthServiceOptions {
  db: Pick<Database, 'query' | 'exec'>;
  /** Session lifetime (`security.session.ttl_seconds`), in milliseconds. */
  sessionTtlMs: number;
  /** How long a resolved credential is cached in this process; revocation here clears it at once. */
  cacheTtlMs?: number;
  now?: () => number;
}

/** A new session: the cookie value and the CSRF token bound to it. */
export interface NewSession {
  token: string;
  csrfToken: string;
  user: string;
}

interface CacheEntry {
  principal: Principal;
  until: number;
}

const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/**
 * Users, sessions, API keys and bearer tokens on the platform database: the AuthChain's back end.
 * `resolve()` turns a presented credential into a principal (or nothing); every secret is compared by its
 * hash, and API secrets in constant time.
 */
export class AuthService {
  readonly #db: Pick<Database, 'query' | 'exec'>;
  readonly #sessionTtlMs: number;
  readonly #cacheTtlMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, CacheEntry>();
  #csrfSecret = Buffer.alloc(0);

  constructor(options: AuthServiceOptions) {
    this.#db = options.db;
    this.#sessionTtlMs = options.sessionTtlMs;
    this.#cacheTtlMs = options.cacheTtlMs ?? 5_000;
    this.#now = options.now ?? Date.now;
  }

  /** Creates the tables, the CSRF secret shared by every process on the database, and loads it. */
  async migrate(): Promise<void> {
    await this.#db.exec(AUTH_SCHEMA);
    await this.#db.query(
      `INSERT INTO auth_secrets (name, value) VALUES ('csrf', $1) ON CONFLICT (name) DO NOTHING`,
      [randomToken()],
    );
    const { rows } = await this.#db.query<{ value: string }>(
      `SELECT value FROM auth_secrets WHERE name = 'csrf'`,
    );
    this.#csrfSecret = Buffer.from(rows[0]!.value, 'base64url');
  }

  /** Creates `Administrator` when missing (first start). Returns true when it did. */
  async ensureAdministrator(password: string): Promise<boolean> {
    const { rows } = await this.#db.query('SELECT 1 FROM auth_users WHERE name = $1', [ADMINISTRATOR]);
    if (rows.length > 0) return false;
    await this.createUser(ADMINISTRATOR, password);
    return true;
  }

  /** Adds a user (no-op when it exists). */
  async createUser(name: string, password: string): Promise<void> {
    await this.#db.query(
      'INSERT INTO auth_users (name, password_hash, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [name, await hashPassword(password), this.#now()],
    );
  }

  /** True when the user exists and is enabled. */
  async userExists(name: string): Promise<boolean> {
    const { rows } = await this.#db.query('SELECT 1 FROM auth_users WHERE name = $1 AND enabled', [name]);
    return rows.length > 0;
  }

  /** Checks a user's password (constant cost whether or not the user exists). */
  async checkPassword(name: string, password: string): Promise<boolean> {
    const { rows } = await this.#db.query<{ password_hash: string }>(
      'SELECT password_hash FROM auth_users WHERE name = $1 AND enabled',
      [name],
    );
    return verifyPassword(password, rows[0]?.password_hash);
  }

  /** Starts a session after a password check; undefined for wrong credentials. */
  async login(name: string, password: string): Promise<NewSession | undefined> {
    if (!(await this.checkPassword(name, password))) return undefined;
    const token = randomToken();
    await this.#db.query('INSERT INTO auth_sessions (id_hash, user_name, expires_at) VALUES ($1, $2, $3)', [
      sha256(token),
      name,
      this.#now() + this.#sessionTtlMs,
    ]);
    return { token, csrfToken: this.csrfToken(token), user: name };
  }

  /** Ends a session. */
  async logout(sessionToken: string): Promise<void> {
    this.#cache.delete(`session:${sessionToken}`);
    await this.#db.query('DELETE FROM auth_sessions WHERE id_hash = $1', [sha256(sessionToken)]);
  }

  /**
   * Changes a password after checking the old one; ends the user's other sessions and drops cached
   * credentials. Returns false when the old password is wrong.
   */
  async changePassword(name: string, oldPassword: string, newPassword: string, keepSession?: string) {
    if (!(await this.checkPassword(name, oldPassword))) return false;
    await this.#db.query('UPDATE auth_users SET password_hash = $2 WHERE name = $1', [
      name,
      await hashPassword(newPassword),
    ]);
    await this.#db.query('DELETE FROM auth_sessions WHERE user_name = $1 AND id_hash <> $2', [
      name,
      keepSession ? sha256(keepSession) : '',
    ]);
    this.#cache.clear();
    return true;
  }

  /** Creates an API key for a user; the secret is returned once and stored only as a hash. */
  async generateApiKey(user: string): Promise<{ api_key: string; api_secret: string }> {
    const apiKey = randomBytes(12).toString('hex');
    const apiSecret = randomToken(24);
    await this.#db.query(
      'INSERT INTO auth_api_keys (api_key, secret_hash, user_name, created_at) VALUES ($1, $2, $3, $4)',
      [apiKey, sha256(apiSecret), user, this.#now()],
    );
    return { api_key: apiKey, api_secret: apiSecret };
  }

  /** Issues a bearer token for a user, valid for `ttlMs`; stored only as a hash. */
  async issueToken(user: string, ttlMs: number): Promise<string> {
    const token = randomToken();
    await this.#db.query('INSERT INTO auth_tokens (id_hash, user_name, expires_at) VALUES ($1, $2, $3)', [
      sha256(token),
      user,
      this.#now() + ttlMs,
    ]);
    return token;
  }

  /** The CSRF token bound to a session: HMAC-SHA256 of the session id under a server secret. */
  csrfToken(sessionToken: string): string {
    return createHmac('sha256', this.#csrfSecret).update(`csrf:${sessionToken}`).digest('base64url');
  }

  /** Checks a CSRF token against a session in constant time. */
  checkCsrfToken(sessionToken: string, presented: string): boolean {
    const expected = Buffer.from(this.csrfToken(sessionToken));
    const actual = Buffer.from(presented);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  /** The principal behind a presented credential, or undefined when it is not valid. */
  async resolve(credential: PresentedCredential): Promise<Principal | undefined> {
    if (credential.kind === 'malformed') return undefined;
    const cacheKey =
      credential.kind === 'api_key'
        ? `api_key:${credential.key}:${credential.secret}`
        : `${credential.kind}:${credential.token}`;
    const now = this.#now();
    const cached = this.#cache.get(cacheKey);
    if (cached && cached.until > now) return cached.principal;
    const found = await this.#lookup(credential, now);
    if (!found) return undefined;
    if (this.#cache.size > 10_000) this.#cache.clear();
    const until = Math.min(now + this.#cacheTtlMs, found.expiresAt ?? Number.POSITIVE_INFINITY);
    this.#cache.set(cacheKey, { principal: found.principal, until });
    return found.principal;
  }

  async #lookup(
    credential: PresentedCredential,
    now: number,
  ): Promise<{ principal: Principal; expiresAt?: number } | undefined> {
    switch (credential.kind) {
      case 'session': {
        const { rows } = await this.#db.query<{ user_name: string; expires_at: unknown }>(
          `SELECT s.user_name, s.expires_at FROM auth_sessions s JOIN auth_users u ON u.name = s.user_name
           WHERE s.id_hash = $1 AND u.enabled`,
          [sha256(credential.token)],
        );
        const row = rows[0];
        const expiresAt = Number(row?.expires_at);
        if (!row || expiresAt <= now) return undefined;
        return { principal: { user: row.user_name, via: 'session' }, expiresAt };
      }
      case 'bearer': {
        const { rows } = await this.#db.query<{ user_name: string; expires_at: unknown }>(
          `SELECT t.user_name, t.expires_at FROM auth_tokens t JOIN auth_users u ON u.name = t.user_name
           WHERE t.id_hash = $1 AND u.enabled`,
          [sha256(credential.token)],
        );
        const row = rows[0];
        const expiresAt = Number(row?.expires_at);
        if (!row || expiresAt <= now) return undefined;
        return { principal: { user: row.user_name, via: 'bearer' }, expiresAt };
      }
      case 'api_key': {
        const { rows } = await this.#db.query<{ user_name: string; secret_hash: string }>(
          `SELECT k.user_name, k.secret_hash FROM auth_api_keys k JOIN auth_users u ON u.name = k.user_name
           WHERE k.api_key = $1 AND u.enabled`,
          [credential.key],
        );
        const row = rows[0];
        const expected = Buffer.from(row?.secret_hash ?? sha256('no such key'));
        const actual = Buffer.from(sha256(credential.secret));
        const ok = expected.length === actual.length && timingSafeEqual(expected, actual);
        return row && ok ? { principal: { user: row.user_name, via: 'api_key' } } : undefined;
      }
      default:
        return undefined;
    }
  }
}
