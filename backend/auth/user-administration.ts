import { PlatformError } from '../http/errors';
import { SYSTEM_MANAGER } from '../permissions/model';
import type { AuthStore } from './auth-store';
import type { PasswordHasher } from './password-hasher';
import type { UserDirectory, UserRecord } from './user-directory';

/** Options of {@link UserAdministration}. */
export interface UserAdministrationOptions {
  store: AuthStore;
  passwords: PasswordHasher;
  /** Drops credentials this process resolved and cached, so a revocation or a role change applies at once. */
  forgetCachedCredentials(): void;
  now?: () => number;
}

/** The built-in administrator; it always holds `System Manager`. */
export const ADMINISTRATOR_NAME = 'Administrator';

/** Password lengths accepted, everywhere a password is set (NIST SP 800-63B 5.1.1.2: at least 8). */
export const PASSWORD_LENGTH = { min: 8, max: 1024 } as const;

/** Pattern of a user name: printable, no leading or trailing space, at most 140 characters. */
export const USER_NAME_PATTERN = /^[^\s\p{C}](?:[^\p{C}]{0,138}[^\s\p{C}])?$/u;

/** What a user name must be, said the same by the users API and `m user` on a stopped server. */
export const USER_NAME_RULE = 'A user name is printable, at most 140 characters, without surrounding spaces.';

/** What a password must be, said the same everywhere one is set. */
export const PASSWORD_RULE = `A password has ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters.`;

/** The rule `name` breaks ({@link USER_NAME_RULE}), or undefined: checked here and by `m user --url`. */
export function userNameProblem(name: string): string | undefined {
  return USER_NAME_PATTERN.test(name) ? undefined : USER_NAME_RULE;
}

/** The rule `password` breaks ({@link PASSWORD_RULE}), or undefined: checked here and by `m user --url`. */
export function passwordProblem(password: string): string | undefined {
  const fits = password.length >= PASSWORD_LENGTH.min && password.length <= PASSWORD_LENGTH.max;
  return fits ? undefined : PASSWORD_RULE;
}

function invalid(field: string, message: string): PlatformError {
  return new PlatformError('validation_failed', message, {
    status: 400,
    fields: [{ field, code: 'invalid', message }],
  });
}

// Here, not only in the users API: `m user` on a stopped server's database goes through this class alone.
function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw invalid('password', problem);
}

function unknownUser(): PlatformError {
  return new PlatformError('unknown_user', 'No such user.', { status: 404 });
}

/**
 * Users and their roles over the auth store (docs/permissions.md#users): the users API, the Desk's Users page
 * and `m user` all go through it. A password change or a disable revokes every session, bearer token and API
 * key of the user.
 */
export class UserAdministration implements UserDirectory {
  readonly #store: AuthStore;
  readonly #passwords: PasswordHasher;
  readonly #forget: () => void;
  readonly #now: () => number;

  constructor(options: UserAdministrationOptions) {
    this.#store = options.store;
    this.#passwords = options.passwords;
    this.#forget = options.forgetCachedCredentials;
    this.#now = options.now ?? Date.now;
  }

  async addUser(name: string, password: string, roles: readonly string[]): Promise<void> {
    const problem = userNameProblem(name);
    if (problem) throw invalid('name', problem);
    checkPassword(password);
    const created = await this.#store.createUser(name, await this.#passwords.hash(password), this.#now());
    if (!created) throw new PlatformError('user_exists', 'A user of this name exists.', { status: 409 });
    await this.#store.setRoles(name, roles);
  }

  listUsers(): Promise<UserRecord[]> {
    return this.#store.listUsers();
  }

  async setRoles(name: string, roles: readonly string[]): Promise<void> {
    await this.#existing(name);
    // Administrator keeps System Manager: without it nobody could manage users any more.
    const kept = name === ADMINISTRATOR_NAME ? [...new Set([...roles, SYSTEM_MANAGER])] : roles;
    await this.#store.setRoles(name, kept);
    this.#forget();
  }

  async setPassword(name: string, password: string): Promise<void> {
    checkPassword(password);
    await this.#existing(name);
    await this.#store.setPasswordHash(name, await this.#passwords.hash(password));
    await this.#store.revokeCredentials(name, '');
    this.#forget();
  }

  async disableUser(name: string): Promise<void> {
    await this.#existing(name);
    if (name === ADMINISTRATOR_NAME) {
      throw new PlatformError('forbidden', 'Administrator cannot be disabled.', { status: 403 });
    }
    await this.#store.setEnabled(name, false);
    await this.#store.revokeCredentials(name, '');
    this.#forget();
  }

  async enableUser(name: string): Promise<void> {
    await this.#existing(name);
    await this.#store.setEnabled(name, true);
    this.#forget();
  }

  async #existing(name: string): Promise<void> {
    if (!(await this.#store.hasUser(name))) throw unknownUser();
  }
}
