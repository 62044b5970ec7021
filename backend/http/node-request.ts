import type { Context } from 'hono';

/**
 * What the app reads of a node:http `IncomingMessage` (typed here: the app also runs inside a browser, with
 * no Node module to import).
 */
export interface NodeRequest {
  /** The header fields by lower-cased name, as node:http joined them. */
  readonly headers: Record<string, string | string[] | undefined>;
  /** Names and values as received, alternating. */
  readonly rawHeaders: readonly string[];
  /** Body bytes parsed and not read yet. */
  readonly readableLength: number;
  readonly readableDidRead: boolean;
  /** `null` until something reads the stream in flowing or paused mode. */
  readonly readableFlowing: boolean | null;
  readonly readableEncoding: string | null;
  /** Everything buffered (one Buffer), or `null` when nothing is. */
  read(): Uint8Array | null;
  readonly readableEnded: boolean;
  readonly destroyed: boolean;
  /** Lets the stream flow (and end) with nobody listening. */
  resume(): unknown;
  on(event: 'end' | 'close', listener: (this: never) => void): unknown;
  off(event: 'end' | 'close', listener: (this: never) => void): unknown;
}

const NODE_REQUEST = Symbol('nodeRequest');
/** Whether every header name of the message occurs once (computed on first need). */
const DISTINCT = Symbol('distinctHeaders');

type Bound = Request & { [NODE_REQUEST]?: NodeRequest; [DISTINCT]?: boolean };

/**
 * Ties a Request to the node:http request the server made it from (`backend/server.ts`). Only that very
 * Request object carries it: a Request built inside the app (the search's sub-requests, which pass the same
 * server bindings on) has none, so nothing reads another request's headers or body.
 */
export function bindNodeRequest(request: Request, incoming: NodeRequest): void {
  (request as Bound)[NODE_REQUEST] = incoming;
}

/** The node:http request behind `c.req.raw`, or undefined (`app.fetch`, the offline mocks, sub-requests). */
export function nodeRequestOf(c: Context): NodeRequest | undefined {
  return (c.req.raw as Bound)[NODE_REQUEST];
}

/**
 * Fields node:http keeps only the first of when repeated, where the Fetch `Headers` the adapter builds join
 * every occurrence (RFC 9110 section 5.3): for these the Node value is the request's only when the name is not
 * repeated.
 */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/** A value Fetch `Headers` would give differently: surrounding whitespace, or a character it refuses. */
const UNUSUAL = /^[\t\n\r ]|[\t\n\r ]$|[\0\r\n]/;

function distinctNames(request: Bound, incoming: NodeRequest): boolean {
  let distinct = request[DISTINCT];
  if (distinct === undefined) {
    let names = 0;
    for (const _ in incoming.headers) names++;
    distinct = names * 2 === incoming.rawHeaders.length;
    request[DISTINCT] = distinct;
  }
  return distinct;
}

/**
 * A request header by its lower-case name, as `c.req.header(name)` gives it: read from the node:http request
 * where there is one (node:http already parsed the fields into a plain object, so no `Headers` object is built
 * for it), else, and wherever node:http's value could differ (a repeated field node:http keeps the first of,
 * a value `Headers` would trim or refuse), from `c.req`.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const request = c.req.raw as Bound;
  const incoming = request[NODE_REQUEST];
  if (incoming !== undefined) {
    const value = incoming.headers[name];
    if (value === undefined) return undefined;
    if (
      typeof value === 'string' &&
      !UNUSUAL.test(value) &&
      (!FIRST_ONLY.has(name) || distinctNames(request, incoming))
    ) {
      return value;
    }
  }
  return c.req.header(name);
}

/**
 * True when the node:http request behind `c` carries the field `name` (lower-case) more than once. node:http
 * keeps only the first of a repeated `Host`, so a repetition is visible only in the raw fields; they are
 * scanned only when some name occurs twice.
 */
export function repeatsField(c: Context, name: string): boolean {
  const request = c.req.raw as Bound;
  const incoming = request[NODE_REQUEST];
  if (incoming === undefined || distinctNames(request, incoming)) return false;
  let count = 0;
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name && ++count > 1) return true;
  }
  return false;
}
