import { base64url } from 'jose';
import type { Principal } from '../http/env';
import { SYSTEM_MANAGER } from '../permissions/model';
import type { AuthStore } from './auth-store';
import type { PresentedCredential } from './credentials';
import { constantTimeEqual, hmacSha256, randomBytes, randomToken, sha256 } from './digest';
import type { PasswordHasher } from './password-hasher';
import { UserAdministration } from './user-administration';

/** The built-in administrator created on first start. */
export const ADMINISTRATOR = 'Administrator';

/** Options of {@link AuthService}. */
export interface AuthServiceOptions {
  /** Users, sessions, keys and tokens: `DbAuthStore` on a server, `MemoryAuthStore` in the offline mocks. */
  store: AuthStore;
  /** `ScryptPasswordHasher` on a server; a WebCrypto one where Node's scrypt cannot run. */
  passwords: PasswordHasher;
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

/** Cache keys of credential objects (a caller's requests share one: `presentedCredential`). */
const cacheKeys = new WeakMap<PresentedCredential, string>();

/** The key of a credential in the cache of resolved credentials, made once per credential object. */
function cacheKeyOf(credential: Exclude<PresentedCredential, { kind: 'malformed' }>): string {
  let key = cacheKeys.get(credential);
  if (key === undefined) {
    key =
      credential.kind === 'api_key'
        ? `api_key:${credential.key}:${credential.secret}`
        : `${credential.kind}:${credential.token}`;
    cacheKeys.set(credential, key);
  }
  return key;
}

interface CacheEntry {
  principal: Principal;
  until: number;
}

/**
 * Users, sessions, API keys and bearer tokens over an {@link AuthStore}: the AuthChain's back end.
 * `resolve()` turns a presented credential into a principal (or nothing); every secret is compared by its
 * hash, and API secrets in constant time.
 */
export class AuthService {
  readonly #store: AuthStore;
  readonly #passwords: PasswordHasher;
  readonly #sessionTtlMs: number;
  readonly #cacheTtlMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, CacheEntry>();
  #csrfSecret: Uint8Array = new Uint8Array(0);
  #users: UserAdministration | undefined;

  constructor(options: AuthServiceOptions) {
    this.#store = options.store;
    this.#passwords = options.passwords;
    this.#sessionTtlMs = options.sessionTtlMs;
    this.#cacheTtlMs = options.cacheTtlMs ?? 5_000;
    this.#now = options.now ?? Date.now;
  }

  /** Prepares the store and loads the CSRF secret shared by every process on it (created on first start). */
  async migrate(): Promise<void> {
    this.#csrfSecret = base64url.decode(await this.#store.init(randomToken()));
  }

  /**
   * Creates `Administrator` when missing (first start) and makes sure it holds `System Manager` (databases
   * from before roles existed). Returns true when it created it.
   */
  async ensureAdministrator(password: string): Promise<boolean> {
    const exists = await this.#store.hasUser(ADMINISTRATOR);
    const created =
      !exists &&
      (await this.#store.createUser(ADMINISTRATOR, await this.#passwords.hash(password), this.#now()));
    const roles = await this.#store.roles(ADMINISTRATOR);
    if (!roles.includes(SYSTEM_MANAGER))
      await this.#store.setRoles(ADMINISTRATOR, [...roles, SYSTEM_MANAGER]);
    return created;
  }

  /** Users and roles: adding, listing, changing roles and passwords, disabling (with revocation). */
  get users(): UserAdministration {
    this.#users ??= new UserAdministration({
      store: this.#store,
      passwords: this.#passwords,
      forgetCachedCredentials: () => this.#cache.clear(),
      now: this.#now,
    });
    return this.#users;
  }

  /** Adds a user (no-op when it exists). */
  async createUser(name: string, password: string): Promise<void> {
    await this.#store.createUser(name, await this.#passwords.hash(password), this.#now());
  }

  /** True when the user exists and is enabled. */
  async userExists(name: string): Promise<boolean> {
    return (await this.#store.passwordHash(name)) !== undefined;
  }

  /** Checks a user's password (constant cost whether or not the user exists). */
  async checkPassword(name: string, password: string): Promise<boolean> {
    return this.#passwords.verify(password, await this.#store.passwordHash(name));
  }

  /**
   * Starts a session after a password check; undefined for wrong credentials. A right password whose stored
   * hash was made with older parameters is hashed again with the current ones, once: the sign-in costs a
   * second hash, and the user's later ones the current cost (docs/security.md#login-throttling).
   */
  async login(name: string, password: string): Promise<NewSession | undefined> {
    const stored = await this.#store.passwordHash(name);
    if (!(await this.#passwords.verify(password, stored))) return undefined;
    if (stored !== undefined && this.#passwords.needsRehash(stored))
      await this.#store.replacePasswordHash(name, stored, await this.#passwords.hash(password));
    const token = randomToken();
    await this.#store.addSession(sha256(token), name, this.#now() + this.#sessionTtlMs);
    return { token, csrfToken: this.csrfToken(token), user: name };
  }

  /** Ends a session. */
  async logout(sessionToken: string): Promise<void> {
    this.#cache.delete(`session:${sessionToken}`);
    await this.#store.deleteSession(sha256(sessionToken));
  }

  /**
   * Changes a password after checking the old one; ends the user's other sessions and drops cached
   * credentials. Returns false when the old password is wrong.
   */
  async changePassword(name: string, oldPassword: string, newPassword: string, keepSession?: string) {
    if (!(await this.checkPassword(name, oldPassword))) return false;
    await this.#store.setPasswordHash(name, await this.#passwords.hash(newPassword));
    // Every other session, every bearer token and every API key: any of them could be the stolen one.
    await this.#store.revokeCredentials(name, keepSession ? sha256(keepSession) : '');
    this.#cache.clear();
    return true;
  }

  /**
   * When the password that started a session was entered (epoch ms), or undefined for an unknown or expired
   * session. Derived from the session's expiry and the session lifetime, so it shifts by as much as
   * `security.session.ttl_seconds` changed since the sign-in.
   */
  async sessionSignedInAt(sessionToken: string): Promise<number | undefined> {
    const expiresAt = await this.sessionExpiresAt(sessionToken);
    return expiresAt === undefined ? undefined : expiresAt - this.#sessionTtlMs;
  }

  /** When a session ends (epoch ms), or undefined for an unknown or expired session. */
  async sessionExpiresAt(sessionToken: string): Promise<number | undefined> {
    const grant = await this.#store.session(sha256(sessionToken));
    return grant && grant.expiresAt > this.#now() ? grant.expiresAt : undefined;
  }

  /** Creates an API key for a user; the secret is returned once and stored only as a hash. */
  async generateApiKey(user: string): Promise<{ api_key: string; api_secret: string }> {
    const apiKey = [...randomBytes(12)].map((b) => b.toString(16).padStart(2, '0')).join('');
    const apiSecret = randomToken(24);
    await this.#store.addApiKey(apiKey, sha256(apiSecret), user, this.#now());
    return { api_key: apiKey, api_secret: apiSecret };
  }

  /** Issues a bearer token for a user, valid for `ttlMs`; stored only as a hash. */
  async issueToken(user: string, ttlMs: number): Promise<string> {
    const token = randomToken();
    await this.#store.addToken(sha256(token), user, this.#now() + ttlMs);
    return token;
  }

  /** The CSRF token bound to a session: HMAC-SHA256 of the session id under a server secret. */
  csrfToken(sessionToken: string): string {
    return hmacSha256(this.#csrfSecret, `csrf:${sessionToken}`);
  }

  /** Checks a CSRF token against a session in constant time. */
  checkCsrfToken(sessionToken: string, presented: string): boolean {
    return constantTimeEqual(this.csrfToken(sessionToken), presented);
  }

  /**
   * The principal {@link resolve} would give, when this process resolved the credential recently and it is
   * still cached (no I/O); undefined otherwise (then call `resolve`).
   */
  resolveCached(credential: PresentedCredential): Principal | undefined {
    if (credential.kind === 'malformed') return undefined;
    const cached = this.#cache.get(cacheKeyOf(credential));
    return cached && cached.until > this.#now() ? cached.principal : undefined;
  }

  /** The principal behind a presented credential, or undefined when it is not valid. */
  async resolve(credential: PresentedCredential): Promise<Principal | undefined> {
    if (credential.kind === 'malformed') return undefined;
    const cacheKey = cacheKeyOf(credential);
    const now = this.#now();
    const cached = this.#cache.get(cacheKey);
    if (cached && cached.until > now) return cached.principal;
    const found = await this.#lookup(credential, now);
    if (!found) return undefined;
    // API keys and bearer tokens act with their user's current roles, like a session.
    found.principal.roles = await this.#store.roles(found.principal.user);
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
      case 'session':
      case 'bearer': {
        const id = sha256(credential.token);
        const grant =
          credential.kind === 'session' ? await this.#store.session(id) : await this.#store.token(id);
        if (!grant || !(grant.expiresAt > now)) return undefined;
        return { principal: { user: grant.user, via: credential.kind }, expiresAt: grant.expiresAt };
      }
      case 'api_key': {
        const key = await this.#store.apiKey(credential.key);
        const ok = constantTimeEqual(key?.secretHash ?? sha256('no such key'), sha256(credential.secret));
        return key && ok ? { principal: { user: key.user, via: 'api_key' } } : undefined;
      }
      default:
        return undefined;
    }
  }
}
