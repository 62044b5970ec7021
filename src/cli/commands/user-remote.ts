import { passwordProblem, userNameProblem } from '../../../backend/auth/user-administration';
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

/** What the server says of a field it refused: its name and the rule's sentence (never the value sent). */
interface FieldRefusal {
  field: string;
  message: string;
}

function invalid(message: string): RemoteUserError {
  return new RemoteUserError('validation_failed', message);
}

/**
 * The rules a stopped server's `m user` checks (UserAdministration, backend/auth/user-administration.ts), in
 * its order and words, checked here before anything is sent: the same mistake reads the same with `--url`,
 * and a password the server would refuse never leaves the machine.
 */
function check(...problems: Array<string | undefined>): void {
  const problem = problems.find((p) => p !== undefined);
  if (problem) throw invalid(problem);
}

/**
 * The server's message, with the fields it names when the message alone does not say them (a server that
 * answers `validation_failed` as "The request body is not valid." plus per-field rules).
 */
function refusalText(message: string, fields: readonly FieldRefusal[] | undefined): string {
  const said = (fields ?? []).filter((f) => f.message !== message);
  if (said.length === 0) return message;
  return `${message} (${said.map((f) => `${f.field}: ${f.message}`).join('; ')})`;
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
    check(userNameProblem(name), passwordProblem(password));
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
    check(passwordProblem(password));
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
      const e = err as { code?: string; message?: string; fields?: FieldRefusal[] };
      const message = e.message ?? 'The server refused the request.';
      throw new RemoteUserError(e.code ?? 'http_error', refusalText(message, e.fields));
    }
  }
}
