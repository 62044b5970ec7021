/**
 * The one MSW handler of the mocks: every request under `/api/` (any origin) goes to the offline backend,
 * which is the platform's own API app (../support/create-mock-backend.ts). Nothing here answers a route
 * itself; this only adapts MSW's request and response to the app's.
 */
import { type HttpHandler, HttpResponse, http } from 'msw';
import type { MockBackend } from '../support/create-mock-backend';

/**
 * The request as the app should see it: MSW keeps the page's cookies in its own store and passes them to
 * the resolver, while a browser refuses a `Cookie` header on a `Request`; the app reads them from a
 * plain `Headers` object instead.
 */
function asSeenByApp(
  request: Request,
  cookies: Record<string, string>,
  authorization: string | undefined,
): Request {
  const names = Object.keys(cookies);
  if (names.length === 0 && authorization === undefined) return request;
  const headers = new Headers(request.headers);
  if (names.length > 0) headers.set('cookie', names.map((name) => `${name}=${cookies[name]}`).join('; '));
  if (authorization !== undefined) headers.set('authorization', authorization);
  return new Proxy(request, {
    get(target, property) {
      if (property === 'headers') return headers;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Options of {@link apiHandlers}. */
export interface ApiHandlerOptions {
  /**
   * An `Authorization` value for requests that present no credential at all (no header, no cookie): tests of
   * code that assumes a signed-in caller use it to act as a client holding a bearer token.
   */
  fallbackAuthorization?: () => Promise<string>;
}

/** The catch-all handler over `backend`. */
export function apiHandlers(backend: MockBackend, options: ApiHandlerOptions = {}): HttpHandler[] {
  return [
    http.all('*/api/*', async ({ request, cookies: stored }) => {
      // MSW adds the cookies it keeps to every request; a browser sends none with `credentials: 'omit'`
      // (discovery, manifests), and a session cookie there would make the app ask for a CSRF token.
      const cookies = request.credentials === 'omit' ? {} : stored;
      const anonymous = !request.headers.has('authorization') && Object.keys(cookies).length === 0;
      const authorization =
        anonymous && options.fallbackAuthorization ? await options.fallbackAuthorization() : undefined;
      const { response, setCookies } = await backend.handle(asSeenByApp(request, cookies, authorization));
      const headers = new Headers(response.headers);
      headers.delete('set-cookie');
      for (const cookie of setCookies) headers.append('set-cookie', cookie);
      // Through HttpResponse, so MSW stores the cookies for the page's next requests.
      return new HttpResponse(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }),
  ];
}
