import { Hono } from 'hono';
import { MAX_SEARCH_LENGTH, SEARCH_PATH } from '../../src/protocol';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { type SearchFanOutDeps, searchEverywhere } from './fan-out';

/** Request headers a search passes on to its sub-requests: credentials and what identifies the client. */
const PASSED_HEADERS = [
  'cookie',
  'authorization',
  'host',
  'accept-language',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
];

/** What the search routes need. */
export interface SearchRouteDeps extends Omit<SearchFanOutDeps, 'dispatch'> {
  /** The platform's request handler (`app.fetch`), given the caller's bindings so limits see the same client. */
  dispatch(request: Request, env: unknown): Promise<Response>;
}

/**
 * `GET /api/search?q=<text>` (docs/http-api.md#global-search): records of every service whose title contains
 * the text, grouped by DocType, and the services left out because they were slow or down
 * (`incomplete`). Needs a signed-in caller like every data request; 400 `invalid_query` for a missing or too
 * long `q`.
 */
export function searchRoutes(deps: SearchRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(SEARCH_PATH, async (c) => {
    const q = (c.req.query('q') ?? '').trim();
    // Counted in characters (code points), as the message says: an emoji is two UTF-16 units of `length`.
    if (!q || [...q].length > MAX_SEARCH_LENGTH) {
      throw new PlatformError('invalid_query', `q must be 1 to ${MAX_SEARCH_LENGTH} characters.`, {
        status: 400,
      });
    }
    const headers = new Headers();
    for (const name of PASSED_HEADERS) {
      const value = c.req.header(name);
      if (value !== undefined) headers.set(name, value);
    }
    // Not a Request: a browser (the offline mocks) would drop the Cookie header from one.
    const base = { url: c.req.url, headers };
    const answer = await searchEverywhere(
      { ...deps, dispatch: (request) => deps.dispatch(request, c.env) },
      base,
      q,
    );
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });
  return routes;
}
