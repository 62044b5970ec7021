/** HTTP: `fetchWithCredentials`, login/CSRF, and the one error type of non-2xx answers. */

export { CSRF_HEADER } from '../../protocol';
export type { CsrfTokenStore } from './csrf';
export { createCsrfTokenStore } from './csrf';
export { csrfTokenStore, fetchWithCredentials, httpClient, login, logout } from './default-client';
export type { HttpClient, HttpClientOptions, LoginResponse, RequestOptions } from './http-client';
export { createHttpClient } from './http-client';
export { HttpError, httpErrorFrom } from './http-error';
