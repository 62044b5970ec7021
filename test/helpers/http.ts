/** Anything that answers a fetch Request: the Hono app, or a wrapper around a real server. */
export interface Fetcher {
  fetch(request: Request): Response | Promise<Response>;
}

/** Options of {@link request}. */
export interface RequestOptions {
  /** A string or bytes are sent as is; anything else is JSON-encoded with `Content-Type: application/json`. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Send no credential, even when the app has a default one (see {@link setDefaultAuthorization}). */
  anonymous?: boolean;
}

/**
 * Default `Authorization` per app. Every endpoint under /api/resource, /api/method and /api/meta requires a
 * principal, so `createTestApp` creates an API key for Administrator and registers it here; `request()` then
 * sends it unless the test passes its own `authorization` or `cookie` header, or `anonymous: true`.
 * An API key (not a cookie session) is used because it carries no ambient credential: the CSRF checks do not
 * apply to it, so tests of other capabilities need no CSRF token.
 */
const defaultAuthorization = new WeakMap<Fetcher, string>();

/** Registers the `Authorization` header `request()` sends to this app by default. */
export function setDefaultAuthorization(app: Fetcher, authorization: string): void {
  defaultAuthorization.set(app, authorization);
}

/** Origin of requests made against `app.fetch` (no server behind it). */
export const TEST_ORIGIN = 'http://desk.test';

/**
 * The one function every backend test sends its requests through, so credentials, CSRF headers or
 * encryption can be attached in one place.
 */
export async function request(
  app: Fetcher,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const headers = new Headers(options.headers);
  const authorization = defaultAuthorization.get(app);
  if (authorization && !options.anonymous && !headers.has('authorization') && !headers.has('cookie')) {
    headers.set('authorization', authorization);
  }
  let body: BodyInit | undefined;
  if (options.body === undefined) body = undefined;
  else if (typeof options.body === 'string' || options.body instanceof Uint8Array) {
    body = options.body as BodyInit;
  } else {
    body = JSON.stringify(options.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const url = /^https?:\/\//.test(path) ? path : `${TEST_ORIGIN}${path}`;
  return app.fetch(new Request(url, { method, headers, body }));
}
