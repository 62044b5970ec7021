/**
 * The global search's fan-out: for every service in the directory, its metadata (which DocTypes, which title
 * field), then one list request per DocType filtered by title. Every request goes through the platform's own
 * request handler with the caller's credentials, so it passes the same security chain and the same
 * routing (local in MONOLITH, forwarded to the owning service in MACROSERVICE) as the Desk's own requests,
 * and a user finds only what the data API would show them. Each service has a deadline; a service that
 * misses it or fails is left out and named in `incomplete`.
 */
import { isFlagged } from '../../src/protocol';
import { kindOfType, takesFilterValue } from '../data/list-query';
import type { SearchAnswer, SearchGap, SearchGroup } from './search-answer';
import { HITS_PER_DOCTYPE } from './search-answer';

/** What the fan-out needs: the services to ask and a way to send a request through the platform. */
export interface SearchFanOutDeps {
  /** The services to search (the gateway's directory). */
  services(): ReadonlyArray<{ service: string }>;
  /** Sends one request through the platform's handler (the caller's credentials are on it). */
  dispatch(request: Request): Promise<Response>;
  /** Deadline per service, in milliseconds. */
  timeoutMs: number;
}

/** Who searches: the URL of their request (its origin) and the headers carrying their credentials. */
export interface SearchCaller {
  url: string;
  headers: Headers;
}

/** The part of a DocType's metadata the search reads. */
interface DocTypeMeta {
  name: string;
  label: string;
  titleField: string;
  fields?: ReadonlyArray<{ name: string; type?: string; encrypted?: boolean; pii?: boolean }>;
}

/** The part of a service's metadata the search reads. */
interface MetaAnswer {
  doctypes?: DocTypeMeta[];
}

/**
 * The filter that finds `q` in a DocType's title: its text contains `q`, or, for a title encrypted at rest
 * (flagged `pii` or `encrypted`), which the database cannot search inside, the title equals `q` as its blind
 * index compares it (case and surrounding spaces aside; docs/security.md#what-can-be-searched).
 */
export function titleFilter(doctype: DocTypeMeta, q: string): [string, string, string] {
  const title = doctype.fields?.find((f) => f.name === doctype.titleField);
  if (title && isFlagged(title)) return [doctype.titleField, '=', q];
  return [doctype.titleField, 'like', likePattern(q)];
}

/**
 * The filters that find `q` as the whole value of a DocType's other flagged fields (an email, a phone
 * number): encrypted at rest, they are searched by equality through their blind index, as a Link picker or a
 * list filter searches them (docs/security.md#what-can-be-searched). A caller who may not see such a field is
 * refused the filter (403), which finds nothing; a record found this way is audited as revealing the field,
 * as any list filtered on it is. A field whose type cannot hold `q` is not asked.
 */
export function flaggedValueFilters(doctype: DocTypeMeta, q: string): Array<[string, string, string]> {
  return (
    (doctype.fields ?? [])
      .filter((f) => isFlagged(f) && f.name !== doctype.titleField)
      // Only a field that can hold `q` (a number field only for a number): the list API refuses the rest
      // with 400, and no record could match them.
      .filter((f) => takesFilterValue(kindOfType(f.type ?? 'data'), q))
      .map((f) => [f.name, '=', q])
  );
}

/** Escapes `%`, `_` and `\` so the text matches literally inside an ILIKE pattern. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

class Timeout extends Error {}

/** A sub-request the service answered with a non-2xx status. */
class RefusedRequest extends Error {
  constructor(readonly status: number) {
    super(`status ${status}`);
  }
}

/** The status of a refusal meaning "this caller may not read this DocType" (docs/permissions.md). */
const FORBIDDEN = 403;

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * A GET request carrying `headers` as given. A browser drops a `Cookie` header from a `Request` it builds
 * (the offline mocks run this code in one), so the headers are a plain `Headers` object the request hands
 * out in place of its own; on a server this is the same as passing them in.
 */
function getRequest(url: URL, headers: Headers): Request {
  const request = new Request(url, { method: 'GET' });
  return new Proxy(request, {
    get(target, property) {
      if (property === 'headers') return headers;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function getJson<T>(
  deps: SearchFanOutDeps,
  base: SearchCaller,
  path: string,
  service: string,
): Promise<T> {
  const headers = new Headers(base.headers);
  headers.set('x-platform-service', service);
  headers.set('accept', 'application/json');
  const response = await deps.dispatch(getRequest(new URL(path, base.url), headers));
  if (!response.ok) throw new RefusedRequest(response.status);
  return (await response.json()) as T;
}

async function searchService(
  deps: SearchFanOutDeps,
  base: SearchCaller,
  service: string,
  q: string,
): Promise<SearchGroup[]> {
  const meta = await getJson<MetaAnswer>(deps, base, `/api/meta/${encodeURIComponent(service)}`, service);
  const doctypes = meta.doctypes ?? [];
  const groups = await Promise.all(
    doctypes.map(async (doctype): Promise<SearchGroup> => {
      const filters = [titleFilter(doctype, q), ...flaggedValueFilters(doctype, q)];
      const pages = await Promise.all(
        filters.map((filter) => {
          const params = new URLSearchParams({
            filters: JSON.stringify([filter]),
            fields: JSON.stringify(['name', doctype.titleField]),
            limit_page_length: String(HITS_PER_DOCTYPE),
          });
          return getJson<{ data?: Array<Record<string, unknown>> }>(
            deps,
            base,
            `/api/resource/${encodeURIComponent(doctype.name)}?${params}`,
            service,
          ).catch((error: unknown) => {
            // A DocType (or a field) the caller may not read is one the data API would show them nothing
            // of: no hits, and the service still answered (a restricted user must not see the whole
            // service as "unavailable").
            if (error instanceof RefusedRequest && error.status === FORBIDDEN) return { data: [] };
            throw error;
          });
        }),
      );
      // The title's hits first, then those of the other fields; a record found twice is listed once.
      const hits = new Map<string, { name: string; title: string }>();
      for (const row of pages.flatMap((page) => page.data ?? [])) {
        const name = String(row.name);
        const title = row[doctype.titleField];
        if (!hits.has(name))
          hits.set(name, { name, title: typeof title === 'string' && title ? title : name });
      }
      return {
        docType: doctype.name,
        label: doctype.label,
        hits: [...hits.values()].slice(0, HITS_PER_DOCTYPE),
      };
    }),
  );
  return groups.filter((g) => g.hits.length > 0);
}

/**
 * Searches every service for records whose title contains `q` (case-insensitive; a title encrypted at rest:
 * equals `q`, see {@link titleFilter}) or whose other flagged fields equal it ({@link flaggedValueFilters}), at most
 * {@link HITS_PER_DOCTYPE} per DocType. `base` is the caller's request: its URL gives the origin and its
 * headers the credentials of the sub-requests.
 */
export async function searchEverywhere(
  deps: SearchFanOutDeps,
  base: SearchCaller,
  q: string,
): Promise<SearchAnswer> {
  const services = deps.services().map((s) => s.service);
  const incomplete: SearchGap[] = [];
  const results = await Promise.all(
    services.map(async (service) => {
      try {
        return await withDeadline(searchService(deps, base, service, q), deps.timeoutMs);
      } catch (error) {
        incomplete.push({ service, reason: error instanceof Timeout ? 'timeout' : 'unavailable' });
        return [];
      }
    }),
  );
  incomplete.sort((a, b) => a.service.localeCompare(b.service));
  return { q, groups: results.flat(), incomplete };
}
