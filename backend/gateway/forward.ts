import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { Agent, type Dispatcher, request } from 'undici';
import { JOSE_CONTENT_TYPE, PERMISSIONS_PREFIX, type ServiceManifest } from '../../src/protocol';
import { isAttachmentUpload } from '../attachments/attachment';
import { INTERNAL_SECRET_ENV, signInternalRequest, TRUST_REJECTED_HEADER } from '../auth/internal-auth';
import type { Logger } from '../context';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { readJsonBody } from '../http/read-body';
import { keyNotForService } from '../security/jwe/errors';
import type { ServiceDirectory } from './service-directory';

/** Options of {@link forwardRoutes}. */
export interface ForwardOptions {
  directory: Pick<ServiceDirectory, 'get' | 'ownerOf'>;
  /** The secret shared with services (`PLATFORM_INTERNAL_SECRET`). */
  secret: string;
  /** Deadline of one upstream call, connect to last body byte (`desk.upstream_timeout_ms`). */
  timeoutMs: number;
  log: Logger;
  /**
   * `server.log_level = "debug"`: told one line per forwarded request (method, path, service, status, the
   * kind and size of the body it forwarded), never a body or a header.
   */
  debug?: Logger;
  /** Connection pool to the services; default a keep-alive Agent owned by the routes. */
  dispatcher?: Dispatcher;
}

/** Request headers worth passing on; credentials never leave the gateway (the principal travels signed). */
const FORWARDED_REQUEST_HEADERS = [
  'accept',
  'accept-language',
  'if-none-match',
  // An import asks to be answered at once (RFC 7240 `respond-async`); the service decides.
  'prefer',
  'x-platform-service',
  'x-request-id',
];

/** Response headers never passed back: hop-by-hop (RFC 9110 section 7.6.1), cookies, and recomputed ones. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'set-cookie',
  'content-length',
  'date',
]);

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'UND_ERR_SOCKET',
]);

/** A successful CSV answer (an export, docs/http-api.md#csv-export): streamed rather than read whole. */
function isStreamed(upstream: Dispatcher.ResponseData): boolean {
  const type = upstream.headers['content-type'];
  return upstream.statusCode === 200 && typeof type === 'string' && type.startsWith('text/csv');
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code && e.code !== 'UND_ERR_ABORTED' ? e.code : e?.cause?.code;
}

/** The service a data or RPC request goes to: `X-Platform-Service`, else the owner derived from the path. */
function resolveService(c: Context<AppEnv>, directory: ForwardOptions['directory']): ServiceManifest {
  const named = c.req.header('x-platform-service');
  if (named !== undefined) {
    const manifest = directory.get(named);
    if (!manifest)
      throw unknownService(`No service named ${JSON.stringify(named.slice(0, 64))} is registered.`);
    return manifest;
  }
  const [, , kind, first = ''] = new URL(c.req.url).pathname.split('/'); // '', 'api', kind, <name>
  let name = '';
  try {
    name = decodeURIComponent(first);
  } catch {
    // malformed percent-encoding: no owner, 404 below
  }
  // A DocType's owner, else (RPC) the app prefix of a dotted method name, e.g. `crm.get_stats`.
  const owner = directory.ownerOf(name) ?? (kind === 'method' ? name.split('.')[0] : undefined);
  const manifest = owner ? directory.get(owner) : undefined;
  if (!manifest) throw unknownService('No registered service serves this path; send X-Platform-Service.');
  return manifest;
}

function unknownService(message: string) {
  return new PlatformError('unknown_service', message, { status: 404 });
}

/**
 * MACROSERVICE gateway routing: `/api/resource/*`, `/api/import/*` and `/api/method/*` go to the service named by
 * `X-Platform-Service` (or the owner of the DocType in the path), `/api/meta/<service>` to that service's
 * `metaUrl`. The gateway's middleware chain has already run, so the body forwarded is the decrypted JSON
 * (a record's attachment upload: the file's bytes and `Content-Type` as received; its download comes back
 * with the service's headers) and the principal is passed signed ({@link signInternalRequest}); cookies and
 * `Authorization` are not. A body encrypted to the owning service's own key is forwarded as the JWE it came
 * as, unopened; one encrypted to another service's key is 400 `key_not_for_service`
 * (docs/security.md#encrypted-to-the-owning-service).
 *
 * Errors: unknown service 404 `unknown_service`; a service that does not answer (refused, reset) 503
 * `service_unavailable`; no complete answer within `timeoutMs` 504 `upstream_timeout`; anything else 502
 * `bad_gateway`. Redirects are passed back, never followed.
 */
export function forwardRoutes(options: ForwardOptions): Hono<AppEnv> {
  const dispatcher =
    options.dispatcher ??
    new Agent({
      keepAliveTimeout: 10_000,
      connections: 128,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: Math.min(options.timeoutMs, 5_000) },
    });

  const forward = async (c: Context<AppEnv>, manifest: ServiceManifest, url: URL) => {
    const method = c.req.method;
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = c.req.header(name);
      if (value !== undefined) headers[name] = value;
    }
    let body: string | Uint8Array = '';
    const sealed = c.get('sealedJwe');
    if (sealed !== undefined) {
      // Encrypted to a service's own key: it goes to that service, as it came, or nowhere.
      if (sealed.service !== manifest.service) throw keyNotForService();
      body = sealed.token;
      headers['content-type'] = JOSE_CONTENT_TYPE;
    } else if (isAttachmentUpload(method, c.req.path)) {
      // A file attached to a record goes on as the bytes and media type received (limited by the chain).
      body = new Uint8Array(await c.req.arrayBuffer());
      headers['content-type'] = c.req.header('content-type') ?? 'application/octet-stream';
    } else if (method !== 'GET' && method !== 'HEAD') {
      const hasBody = c.get('jsonBody') !== undefined || (await c.req.text()).trim() !== '';
      if (hasBody) {
        body = JSON.stringify(await readJsonBody(c));
        headers['content-type'] = 'application/json';
      }
    }
    Object.assign(
      headers,
      signInternalRequest(options.secret, {
        method,
        target: url.pathname + url.search,
        body,
        principal: c.get('principal'),
        // The service keeps the Idempotency-Key record with the write (docs/security.md#idempotency).
        idempotency: c.get('idempotencyLookup'),
      }),
    );
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
    const signal = deadline.signal;
    let upstream: Dispatcher.ResponseData;
    let bytes: ArrayBuffer | ReadableStream<Uint8Array>;
    try {
      upstream = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body: body.length > 0 ? body : undefined,
        dispatcher,
        signal,
      });
      if (isStreamed(upstream)) {
        // An export is passed on as it comes, read only as fast as the client takes it, so the gateway holds
        // a chunk or two of it, not the whole file. Its length has no deadline: the connection's idle timeout
        // (`bodyTimeout`, the same bound) ends one whose service stalls.
        clearTimeout(timer);
        bytes = Readable.toWeb(upstream.body) as ReadableStream<Uint8Array>;
      } else bytes = await upstream.body.arrayBuffer();
    } catch (cause) {
      clearTimeout(timer);
      const code = errorCode(cause);
      if (signal.aborted || (code && TIMEOUT_CODES.has(code))) {
        throw new PlatformError('upstream_timeout', `Service ${manifest.service} did not answer in time.`, {
          status: 504,
          cause,
        });
      }
      if (code && UNREACHABLE_CODES.has(code)) {
        throw new PlatformError('service_unavailable', `Service ${manifest.service} is unavailable.`, {
          status: 503,
          headers: { 'Retry-After': '1' },
          cause,
        });
      }
      options.log(`forward: ${manifest.service} failed (${code ?? (cause as Error).name})`);
      throw new PlatformError('bad_gateway', `Service ${manifest.service} answered incorrectly.`, {
        status: 502,
        cause,
      });
    }
    clearTimeout(timer);
    if (upstream.headers[TRUST_REJECTED_HEADER] !== undefined) {
      // A configuration error, not the client's: the service and this gateway do not share the secret.
      options.log(
        `forward: ${manifest.service} refused the gateway's signature (is ${INTERNAL_SECRET_ENV} the same?)`,
      );
      throw new PlatformError('bad_gateway', `Service ${manifest.service} does not trust this gateway.`, {
        status: 502,
      });
    }
    const out = new Headers();
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name)) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
    }
    const status = upstream.statusCode;
    options.debug?.(
      `forward: ${method} ${url.pathname} -> ${manifest.service} ${status} (${
        sealed !== undefined ? 'sealed JWE' : body ? 'JSON' : 'no body'
      }, ${Buffer.byteLength(body)} bytes)`,
    );
    const empty = status === 204 || status === 304 || method === 'HEAD';
    if (empty && bytes instanceof ReadableStream) void bytes.cancel();
    return new Response(empty ? null : bytes, { status, headers: out });
  };

  const app = new Hono<AppEnv>();
  const toApi = (c: Context<AppEnv>) => {
    const manifest = resolveService(c, options.directory);
    const incoming = new URL(c.req.url);
    const path = incoming.pathname.slice('/api'.length); // still percent-encoded, as received
    const url = new URL(`${manifest.apiUrl.replace(/\/+$/, '')}${path}${incoming.search}`);
    return forward(c, manifest, url);
  };
  app.all('/api/resource/*', toApi);
  app.all('/api/method/*', toApi);
  // A DocType's permission rules are kept by the service owning it (docs/permissions.md#at-run-time).
  app.all(`${PERMISSIONS_PREFIX}/*`, toApi);
  // A record's history and comments live with the record, at the service owning its DocType.
  app.all('/api/history/*', toApi);
  // An import creates its records at the service owning the DocType, which keeps the import's state.
  app.all('/api/import/*', toApi);
  app.get('/api/meta/:service', (c) => {
    const manifest = options.directory.get(c.req.param('service'));
    if (!manifest) throw unknownService('No service of this name is registered.');
    const url = new URL(manifest.metaUrl);
    url.search = new URL(c.req.url).search;
    return forward(c, manifest, url);
  });
  return app;
}
