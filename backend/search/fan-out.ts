/**
 * The global search's fan-out: for every service in the directory, its metadata (which DocTypes, which title
 * field), then per DocType one list request filtered by title and one per other flagged field, in turn, each
 * for the room its DocType's hits have left. Every request goes through the platform's own request handler with
 * the caller's credentials, so it passes the same security chain and the same routing (local in MONOLITH,
 * forwarded to the owning service in MACROSERVICE) as the Desk's own requests, and a user finds only what the
 * data API would show them (a record a list returns is audited as revealing the flagged fields it tested, so
 * every one is shown). Each service has a deadline; a service that misses it or fails is named in
 * `incomplete`, with only what it had found by then.
 */
import { isFlagged } from '../../src/protocol';
import { kindOfType, takesFilterValue } from '../data/list-query';
import type { SearchAnswer, SearchGap, SearchGroup, SearchHit } from './search-answer';
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

/**
 * Refusals of one list request that mean "nothing to find here", not "the service failed": 403, a DocType
 * (or a field) the caller may not read (docs/permissions.md); 400, a filter the list API does not take on
 * that field (no record could match it: its value cannot be stored there).
 */
const NOTHING_FOUND: ReadonlySet<number> = new Set([400, 403]);

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

/**
 * What a service's search has found so far, kept as each list answers: a record a list returned was audited
 * as revealed by it, so it is shown even when a later request of the service fails or the deadline passes.
 */
class Found {
  readonly #groups = new Map<string, { label: string; hits: Map<string, SearchHit> }>();
  /** Set when the deadline passed: no further request is sent (it would reveal what nobody is shown). */
  stopped = false;

  /** Room left in `doctype`'s group. */
  room(doctype: DocTypeMeta): number {
    return HITS_PER_DOCTYPE - (this.#groups.get(doctype.name)?.hits.size ?? 0);
  }

  add(doctype: DocTypeMeta, rows: ReadonlyArray<Record<string, unknown>>): void {
    let group = this.#groups.get(doctype.name);
    if (!group) {
      group = { label: doctype.label, hits: new Map() };
      this.#groups.set(doctype.name, group);
    }
    for (const row of rows) {
      const name = String(row.name);
      const title = row[doctype.titleField];
      if (!group.hits.has(name))
        group.hits.set(name, { name, title: typeof title === 'string' && title ? title : name });
    }
  }

  groups(): SearchGroup[] {
    return [...this.#groups]
      .filter(([, g]) => g.hits.size > 0)
      .map(([docType, g]) => ({ docType, label: g.label, hits: [...g.hits.values()] }));
  }
}

/**
 * Searches one DocType: its title first, then its other flagged fields one after the other, each asked for no
 * more records than its group has room left for. Every record a list returns is shown, so none is audited as
 * revealed that the caller does not get (a record found twice is listed once).
 */
async function searchDocType(
  deps: SearchFanOutDeps,
  base: SearchCaller,
  service: string,
  doctype: DocTypeMeta,
  q: string,
  found: Found,
): Promise<void> {
  found.add(doctype, []);
  for (const filter of [titleFilter(doctype, q), ...flaggedValueFilters(doctype, q)]) {
    const room = found.room(doctype);
    if (room <= 0 || found.stopped) return;
    const params = new URLSearchParams({
      filters: JSON.stringify([filter]),
      fields: JSON.stringify(['name', doctype.titleField]),
      limit_page_length: String(room),
    });
    const page = await getJson<{ data?: Array<Record<string, unknown>> }>(
      deps,
      base,
      `/api/resource/${encodeURIComponent(doctype.name)}?${params}`,
      service,
    ).catch((error: unknown) => {
      // A DocType (or a field) the caller may not read, or a filter the list API does not take on a field,
      // is one the data API would show them nothing of: no hits, and the service still answered (a
      // restricted user must not see the whole service as "unavailable", nor lose its other DocTypes' hits).
      if (error instanceof RefusedRequest && NOTHING_FOUND.has(error.status)) return { data: [] };
      throw error;
    });
    found.add(doctype, (page.data ?? []).slice(0, room));
  }
}

async function searchService(
  deps: SearchFanOutDeps,
  base: SearchCaller,
  service: string,
  q: string,
  found: Found,
): Promise<void> {
  const meta = await getJson<MetaAnswer>(deps, base, `/api/meta/${encodeURIComponent(service)}`, service);
  // Every DocType runs to its end: one failing does not drop what the others found (and was audited).
  const outcomes = await Promise.allSettled(
    (meta.doctypes ?? []).map((doctype) => searchDocType(deps, base, service, doctype, q, found)),
  );
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Searches every service for records whose title contains `q` (case-insensitive; a title encrypted at rest:
 * equals `q`, see {@link titleFilter}) or whose other flagged fields equal it ({@link flaggedValueFilters}), at most
 * {@link HITS_PER_DOCTYPE} per DocType. `base` is the caller's request: its URL gives the origin and its
 * headers the credentials of the sub-requests. A service that fails or misses its deadline is named in
 * `incomplete`, with whatever it had found by then: records its lists returned are shown, not only audited.
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
      const found = new Found();
      try {
        await withDeadline(searchService(deps, base, service, q, found), deps.timeoutMs);
      } catch (error) {
        if (error instanceof Timeout) found.stopped = true;
        incomplete.push({ service, reason: error instanceof Timeout ? 'timeout' : 'unavailable' });
      }
      return found.groups();
    }),
  );
  incomplete.sort((a, b) => a.service.localeCompare(b.service));
  return { q, groups: results.flat(), incomplete };
}
