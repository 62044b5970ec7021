import type { Pool } from 'undici';
import type { HttpRequest, HttpResponse, PreparedRequest } from './http-message';
import { RawHttpPool } from './raw-http';

/** Most distinct URLs whose parsing is kept. */
const ROUTE_CACHE_SIZE = 1024;

/** Where a URL goes: the plain-http pool (undefined for https), the path with query, and `host`. */
interface Route {
  raw: RawHttpPool | undefined;
  path: string;
  host: string;
}

/** An https origin's undici pool, and undici's header parser. */
interface UndiciPool {
  pool: Pool;
  parseHeaders(raw: Buffer[]): Record<string, string | string[] | undefined>;
}

/** Pool settings: connections per origin, and the limit for headers and for the body, each. */
export interface HttpClientOptions {
  connections: number;
  timeoutMs: number;
  /** Sent as `Host` (`users.host`). */
  hostHeader?: string;
}

/**
 * Keep-alive connection pools, one per origin (the target and any service `apiUrl` on another origin):
 * plain http through {@link RawHttpPool} (a request is one socket write, the response parsed by hand:
 * about half the CPU per request of a general-purpose client), https through undici `Pool` driven at
 * its lowest level. Keeping the generator's own cost low keeps it out of the measured latency. Transport
 * failures reject with coded errors (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, ...).
 */
export class HttpClient {
  private readonly pools = new Map<string, Promise<UndiciPool>>();
  private readonly raw = new Map<string, RawHttpPool>();
  /** Parsed URLs: a scenario sends to the same few URLs over and over. */
  private readonly routes = new Map<string, Route>();
  private lastHref: string | undefined;
  private lastRoute: Route | undefined;

  constructor(private readonly options: HttpClientOptions) {}

  /**
   * Sends one request and reads the whole body, through `Pool.dispatch` with a handler that collects the
   * body chunks rather than `Pool.request`: no stream object per response, which measured here as about
   * 45 % more requests per second from one thread.
   */
  request(req: HttpRequest): Promise<HttpResponse> {
    const route = this.route(req.url);
    if (route.raw) {
      const host = this.options.hostHeader ?? req.headers.host ?? route.host;
      return route.raw.request(req.method, route.path, host, req.headers, req.body);
    }
    const headers = this.options.hostHeader ? { ...req.headers, host: this.options.hostHeader } : req.headers;
    const url = new URL(req.url);
    return this.pool(url.origin).then(
      ({ pool, parseHeaders }) =>
        new Promise((resolve, reject) => {
          let status = 0;
          let rawHeaders: Buffer[] = [];
          const chunks: Buffer[] = [];
          pool.dispatch(
            {
              path: url.pathname + url.search,
              method: req.method as 'GET',
              headers,
              body: req.body,
              headersTimeout: this.options.timeoutMs,
              bodyTimeout: this.options.timeoutMs,
            },
            {
              onConnect() {},
              onHeaders(statusCode, raw) {
                status = statusCode;
                rawHeaders = raw;
                return true;
              },
              onData(chunk) {
                chunks.push(chunk);
                return true;
              },
              onComplete() {
                const text =
                  chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
                resolve({ status, headers: parseHeaders(rawHeaders), text, receivedMs: performance.now() });
              },
              onError: reject,
            },
          );
        }),
    );
  }

  /**
   * Prepares a body-less request that is sent again and again unchanged (a scenario's fixed path and
   * headers with fixed credentials): its URL is resolved and, for plain http, its bytes encoded once, so
   * each `send` only writes them. Sending after `close` fails as a request would on a closed client.
   */
  prepare(req: Omit<HttpRequest, 'body'>): PreparedRequest {
    const route = this.route(req.url);
    if (!route.raw) return { send: () => this.request(req) };
    const host = this.options.hostHeader ?? req.headers.host ?? route.host;
    return route.raw.prepare(req.method, route.path, host, req.headers);
  }

  /** Closes every pool (waits for in-flight requests). */
  async close(): Promise<void> {
    const pools = await Promise.all(this.pools.values());
    await Promise.all([...pools.map((p) => p.pool), ...this.raw.values()].map((p) => p.close()));
    this.pools.clear();
    this.raw.clear();
    this.routes.clear();
    this.lastRoute = undefined;
  }

  private route(href: string): Route {
    // A scenario sends to the same URL over and over: the last one is checked first.
    if (href === this.lastHref && this.lastRoute) return this.lastRoute;
    let route = this.routes.get(href);
    if (!route) {
      const url = new URL(href);
      route = {
        raw: url.protocol === 'http:' ? this.rawPool(url) : undefined,
        path: url.pathname + url.search,
        host: url.host,
      };
      // Rendered paths (ids, data rows) may be unique: the cache is bounded.
      if (this.routes.size >= ROUTE_CACHE_SIZE) this.routes.clear();
      this.routes.set(href, route);
    }
    this.lastHref = href;
    this.lastRoute = route;
    return route;
  }

  /** Plain http: the lean client of `raw-http.ts` (https goes through undici). */
  private rawPool(url: URL): RawHttpPool {
    let pool = this.raw.get(url.host);
    if (!pool) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      pool = new RawHttpPool(host, Number(url.port || 80), this.options.connections, this.options.timeoutMs);
      this.raw.set(url.host, pool);
    }
    return pool;
  }

  /**
   * The undici pool of an https origin. undici is loaded with the first one: a run against plain http
   * never reads it (a megabyte of code, tens of milliseconds of start-up).
   */
  private pool(origin: string): Promise<UndiciPool> {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = import('undici').then(({ Pool, util }) => ({
        pool: new Pool(origin, { connections: this.options.connections, pipelining: 1 }),
        parseHeaders: (raw: Buffer[]) => util.parseHeaders(raw),
      }));
      this.pools.set(origin, pool);
    }
    return pool;
  }
}

/** Parses a JSON body, or undefined when it is not JSON. */
export function jsonOf(res: HttpResponse): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    return undefined;
  }
}
