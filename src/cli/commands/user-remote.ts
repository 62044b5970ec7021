import { createHttpClient, type HttpClient } from '../../sdk/http';
import { SecurityClient } from '../../sdk/security';
import { USERS_API, type UserAdmin, type UserSummary } from './user-admin';

/** Error of a remote call: the server's stable error code and message. */
export class RemoteUserError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `m user ... --url <base>`: the users API of a running server, authenticated as an administrator by
 * `Authorization: token <api_key>:<api_secret>` (from `PLATFORM_API_KEY`). Requests go through the SDK's
 * HTTP client, so a password is sent as a JWE wherever the server's encryption mode asks for it.
 */
export class RemoteUserAdmin implements UserAdmin {
  readonly #http: HttpClient;

  constructor(
    baseUrl: string,
    private readonly authorization: string,
    fetchImpl: typeof fetch = fetch,
  ) {
    const base = baseUrl.replace(/\/+$/, '');
    const security = new SecurityClient({ baseUrl: base, fetch: fetchImpl });
    this.#http = createHttpClient({ baseUrl: base, fetch: fetchImpl, security });
  }

  async add(name: string, password: string, roles: readonly string[]): Promise<void> {
    await this.#call(USERS_API.add, { name, password, roles });
  }

  async knownRoles(): Promise<string[]> {
    return (await this.#call(USERS_API.roles, {})) as string[];
  }

  async list(): Promise<UserSummary[]> {
    return (await this.#call(USERS_API.list, {})) as UserSummary[];
  }

  async setRoles(name: string, roles: readonly string[]): Promise<void> {
    await this.#call(USERS_API.setRoles, { name, roles });
  }

  async setPassword(name: string, password: string): Promise<void> {
    await this.#call(USERS_API.setPassword, { name, password });
  }

  async disable(name: string): Promise<void> {
    await this.#call(USERS_API.disable, { name });
  }

  async enable(name: string): Promise<void> {
    await this.#call(USERS_API.enable, { name });
  }

  async close(): Promise<void> {}

  async #call(path: string, body: unknown): Promise<unknown> {
    try {
      const answer = await this.#http.fetch<{ message?: unknown }>(path, {
        method: 'POST',
        body,
        headers: { authorization: this.authorization },
      });
      return answer?.message;
    } catch (err) {
      const e = err as { code?: string; message?: string };
      throw new RemoteUserError(e.code ?? 'http_error', e.message ?? 'The server refused the request.');
    }
  }
}
