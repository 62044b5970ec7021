/**
 * The page's default HTTP client: same origin, the default SecurityClient, a CSRF store over
 * `sessionStorage`. `fetchWithCredentials`, `login` and `logout` are its methods as plain functions.
 */

import type { FlaggedSchema } from '../../protocol';
import { securityClient } from '../security/default-client';
import type { CsrfTokenStore } from './csrf';
import { createHttpClient, type HttpClient, type LoginResponse, type RequestOptions } from './http-client';

/** The shared HTTP client behind {@link fetchWithCredentials}. */
export const httpClient: HttpClient = createHttpClient({ security: securityClient });

/** The CSRF token store of the default client (set by {@link login}). */
export const csrfTokenStore: CsrfTokenStore = httpClient.csrf;

/**
 * `fetchWithCredentials(url, options, schema?)` (docs/sdk.md#payload-encryption-and-http) over the default
 * client: resolves to the parsed JSON answer; rejects with an `HttpError` (non-2xx) or another `SdkError`.
 *
 * @example
 * const { data } = await fetchWithCredentials<{ data: Customer }>('/api/resource/crm.Customer', {
 *   method: 'POST', body: customer, service: 'crm',
 * }, customerSchema);
 */
export function fetchWithCredentials<T = unknown>(
  url: string,
  options?: RequestOptions,
  schema?: FlaggedSchema,
): Promise<T> {
  return httpClient.fetch<T>(url, options, schema);
}

/** Logs in with the session provider and stores the CSRF token (docs/security.md#auth). */
export function login(
  usr: string,
  pwd: string,
  options?: { url?: string; signal?: AbortSignal },
): Promise<LoginResponse> {
  return httpClient.login(usr, pwd, options);
}

/** Logs out and forgets the CSRF token. */
export function logout(options?: { url?: string }): Promise<void> {
  return httpClient.logout(options);
}
