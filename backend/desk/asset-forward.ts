import { Hono } from 'hono';
import { SERVICE_NAME_PATTERN } from '../gateway/manifests/manifest-schema';
import type { ServiceDirectory } from '../gateway/service-directory';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { proxyAsset } from './asset-proxy';
import { assetSegments } from './static-files';

/** Options of {@link assetForwardRoutes}. */
export interface AssetForwardOptions {
  /** The gateway's internal directory: the services' own addresses. */
  directory: Pick<ServiceDirectory, 'get'>;
  /** Whole-exchange timeout (`desk.upstream_timeout_ms`). */
  timeoutMs: number;
}

function notFound(): PlatformError {
  return new PlatformError('not_found', 'No such asset.', { status: 404 });
}

/** True when a raw request target has a `.` or `..` segment, separated by `/` or `\`, in any encoding. */
function hasDotSegment(target: string): boolean {
  const path = target.split(/[?#]/, 1)[0]!;
  return path.split(/\/|\\|%2f|%5c/i).some((segment) => {
    const lowered = segment.toLowerCase().replaceAll('%2e', '.');
    return lowered === '.' || lowered === '..';
  });
}

/**
 * `GET /desk/assets/<service>/...` on a MACROSERVICE gateway with `desk.mfe_proxy_enabled`: the gateway
 * installs no apps, so the hybrid resolution (docs/http-api.md#hybrid-asset-resolution) goes straight to the
 * proxy step, with the Desk's own asset proxy (backend/desk/asset-proxy.ts: no redirects, no cookies either
 * way, size and time limits) aimed at the origin of the service's own `apiUrl`. Browsers only see the
 * gateway's address, so the upstream comes from the internal directory. Traversal in any encoding is 400
 * `invalid_path`; an unregistered service is 404 with no connection attempted
 * (docs/security.md#the-asset-proxy-is-not-an-open-proxy).
 */
export function assetForwardRoutes(options: AssetForwardOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/desk/assets/:service/*', async (c, next) => {
    const raw = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
    if (raw !== undefined && hasDotSegment(raw)) {
      throw new PlatformError('invalid_path', 'The path is not allowed.', { status: 400 });
    }
    const service = c.req.param('service');
    // The shell build is the gateway's own (the Desk routes serve it).
    if (service === 'shell' || !SERVICE_NAME_PATTERN.test(service)) return next();
    const prefix = `/desk/assets/${service}/`;
    const pathname = new URL(c.req.url).pathname;
    const segments = assetSegments(pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '');
    const manifest = options.directory.get(service);
    if (!manifest) throw notFound();
    return proxyAsset({
      upstreamOrigin: new URL(manifest.apiUrl).origin,
      path: `${prefix}${segments.map(encodeURIComponent).join('/')}`,
      headers: c.req.raw.headers,
      method: c.req.method === 'HEAD' ? 'HEAD' : 'GET',
      timeoutMs: options.timeoutMs,
    });
  });
  return routes;
}
