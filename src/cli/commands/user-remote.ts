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
 * `Authorization: token <api_key>:<api_secret>` (from `PLATFORM_API_KEY`).
 */
export class RemoteUserAdmin implements UserAdmin {
  constructor(
    private readonly baseUrl: string,
    private readonly authorization: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async add(name: string, password: string, roles: readonly string[]): Promise<void> {
    await this.#call(USERS_API.add, { name, password, roles });
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

  async close(): Promise<void> {}

  async #call(path: string, body: unknown): Promise<unknown> {
    const res = await this.fetchImpl(new URL(path, this.baseUrl), {
      method: 'POST',
      headers: { authorization: this.authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json().catch(() => ({}))) as {
      message?: unknown;
      error?: { code?: string; message?: string };
    };
    if (!res.ok) {
      throw new RemoteUserError(
        json.error?.code ?? `http_${res.status}`,
        json.error?.message ?? res.statusText,
      );
    }
    return json.message;
  }
}
