import type { HttpResponse } from '../engine/http-message';

/**
 * The credentials of one simulated user for one auth provider. `login` (re-)authenticates (a no-op for
 * static credentials); `headers` gives what a request carries; `observe` sees every response (a session
 * keeps its cookie jar current). `relogin` says whether a 401 is worth a new login and one retry.
 */
export interface UserAuth {
  readonly relogin: boolean;
  login(): Promise<void>;
  headers(method: string): Record<string, string>;
  observe(res: HttpResponse): void;
}

/** The `observe` of credentials that keep no state from responses (callers may skip calling it). */
export function ignoreResponse(_res: HttpResponse): void {}

/** Fixed headers: api_key, bearer and none. Nothing to log in to, so a 401 is final. */
export function staticAuth(headers: Record<string, string>): UserAuth {
  return {
    relogin: false,
    async login() {},
    headers: () => headers,
    observe: ignoreResponse,
  };
}
