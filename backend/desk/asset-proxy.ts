import { request } from 'undici';
import { type ErrorCode, PlatformError } from '../http/errors';
import { cacheControlOf } from './static-files';

/** Hop-by-hop headers (RFC 9110 section 7.6.1), never forwarded in either direction. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/**
 * Credentials of this origin never leave it (docs/security.md#the-asset-proxy-is-not-an-open-proxy); `host`
 * is the upstream's own.
 */
const NEVER_OUT = new Set(['cookie', 'authorization', 'host', 'content-length', 'expect']);
const NEVER_IN = new Set(['set-cookie', 'content-length']);

/** Largest asset the proxy relays; an upstream sending more is a 502. */
const MAX_ASSET_BYTES = 32 * 1024 * 1024;

/** Options of {@link proxyAsset}. */
export interface ProxyAssetOptions {
  /** Origin (`http(s)://host:port`) of the registered service's `apiUrl`; nothing else is ever contacted. */
  upstreamOrigin: string;
  /** The asset path, already checked against traversal, e.g. `/desk/assets/crm/remoteEntry.js`. */
  path: string;
  /** The client's request headers (filtered here). */
  headers: Headers;
  method: 'GET' | 'HEAD';
  /** Whole-exchange timeout (`desk.upstream_timeout_ms`). */
  timeoutMs: number;
}

/** Names listed in a `Connection` header (RFC 9110 section 7.6.1): hop-by-hop for this message only. */
function connectionListed(value: string | null | undefined): Set<string> {
  return new Set(
    (value ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** The request headers forwarded upstream: hop-by-hop, `Connection`-listed, Cookie and Authorization removed. */
export function outboundHeaders(incoming: Headers): Record<string, string> {
  const listed = connectionListed(incoming.get('connection'));
  const out: Record<string, string> = {};
  incoming.forEach((value, name) => {
    const key = name.toLowerCase();
    if (HOP_BY_HOP.has(key) || NEVER_OUT.has(key) || listed.has(key)) return;
    out[key] = value;
  });
  return out;
}

function upstreamError(code: ErrorCode, message: string, status = 502): PlatformError {
  return new PlatformError(code, message, { status });
}

/**
 * Relays one MFE asset from a registered service (docs/http-api.md#hybrid-asset-resolution, the proxy step)
 * without being an open proxy (docs/security.md#the-asset-proxy-is-not-an-open-proxy): the target is
 * `upstreamOrigin` + `path` only, redirects are never followed (502 `upstream_redirect`), Cookie,
 * Authorization and hop-by-hop headers stay here, Set-Cookie and hop-by-hop headers from upstream are
 * dropped, the exchange is bounded by `timeoutMs` (504 `upstream_timeout`), and an unreachable upstream is
 * 502 `upstream_unavailable`. An upstream 404 is this route's 404; the asset's cache policy is this
 * platform's, whatever the upstream said.
 */
export async function proxyAsset(options: ProxyAssetOptions): Promise<Response> {
  const origin = new URL(options.upstreamOrigin);
  if (origin.protocol !== 'http:' && origin.protocol !== 'https:') {
    throw upstreamError('upstream_unavailable', 'The service has no HTTP origin.');
  }
  const target = new URL(options.path, origin.origin);
  const signal = AbortSignal.timeout(options.timeoutMs);
  let upstream: Awaited<ReturnType<typeof request>>;
  let body: Uint8Array<ArrayBuffer>;
  try {
    upstream = await request(target, {
      method: options.method,
      headers: outboundHeaders(options.headers),
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of upstream.body) {
      size += chunk.byteLength;
      if (size > MAX_ASSET_BYTES) {
        upstream.body.destroy();
        throw upstreamError('upstream_error', 'The upstream asset is too large.');
      }
      chunks.push(chunk);
    }
    body = new Uint8Array(Buffer.concat(chunks));
  } catch (err) {
    if ((err as { code?: string }).code === 'upstream_error') throw err;
    if (signal.aborted || /timeout/i.test((err as Error).name + String((err as { code?: string }).code))) {
      throw upstreamError('upstream_timeout', 'The service did not answer in time.', 504);
    }
    throw upstreamError('upstream_unavailable', 'The service could not be reached.');
  }

  const status = upstream.statusCode;
  if (status >= 300 && status < 400 && status !== 304) {
    throw upstreamError('upstream_redirect', 'The service answered with a redirect, which is not followed.');
  }
  if (status === 404 || status === 410) {
    throw new PlatformError('not_found', 'No such asset.', { status: 404 });
  }
  if (status !== 200 && status !== 304) {
    throw upstreamError('upstream_error', `The service answered ${status}.`);
  }

  const listed = connectionListed(
    Array.isArray(upstream.headers.connection)
      ? upstream.headers.connection.join(',')
      : upstream.headers.connection,
  );
  const headers = new Headers();
  for (const [name, value] of Object.entries(upstream.headers)) {
    const key = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(key) || NEVER_IN.has(key) || listed.has(key)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  headers.set('cache-control', cacheControlOf(target.pathname));
  headers.set('x-content-type-options', 'nosniff');
  return new Response(status === 304 || options.method === 'HEAD' ? null : body, { status, headers });
}
