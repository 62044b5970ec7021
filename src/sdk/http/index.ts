/** HTTP: `fetchWithCredentials`, login/CSRF, and the one error type of non-2xx answers. */
export { CSRF_HEADER, type CsrfTokenStore, createCsrfTokenStore } from './csrf';
export { csrfTokenStore, fetchWithCredentials, httpClient, login, logout } from './default-client';
export {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type LoginResponse,
  type RequestOptions,
} from './http-client';
export { HttpError, httpErrorFrom } from './http-error';
