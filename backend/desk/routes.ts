import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Context, Hono } from 'hono';
import { appDirOf } from '../apps/index';
import type { AppContext } from '../context';
import { SERVICE_NAME_PATTERN } from '../gateway/oracle';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { allowedHosts, isAllowedHost } from '../middleware/host-check';
import { isReleaseSegment, serveReleaseAsset } from '../releases/release-assets';
import { proxyAsset } from './asset-proxy';
import { DESK_PAGE_HEADERS, deskContentSecurityPolicy } from './page-security';
import { platformConfigMarkup, platformConfigPayload } from './platform-config';
import { injectBeforeFirstScript, rewriteAssetUrls } from './shell-html';
import { assetSegments, etagMatches, readStaticFile, type StaticFile } from './static-files';

const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

function notFound(): PlatformError {
  return new PlatformError('not_found', 'No such asset.', { status: 404 });
}

/** The rest of the path after `prefix`, still percent-encoded (the router's decoded view would hide `%2f`). */
function rawRest(c: Context, prefix: string): string {
  const path = new URL(c.req.url).pathname;
  return path.startsWith(prefix) ? path.slice(prefix.length) : '';
}

/** True when a raw request target has a `.` or `..` segment, separated by `/` or `\\`, in any encoding. */
function hasDotSegment(target: string): boolean {
  const path = target.split(/[?#]/, 1)[0]!;
  return path.split(/\/|\\|%2f|%5c/i).some((segment) => {
    const lowered = segment.toLowerCase().replaceAll('%2e', '.');
    return lowered === '.' || lowered === '..';
  });
}

function sendFile(c: Context, file: StaticFile): Response {
  const headers = {
    'Content-Type': file.contentType,
    'Cache-Control': file.cacheControl,
    ETag: file.etag,
    'X-Content-Type-Options': 'nosniff',
    ...(file.encoding ? { 'Content-Encoding': file.encoding } : {}),
    ...(file.negotiated ? { Vary: 'Accept-Encoding' } : {}),
  };
  if (etagMatches(c.req.header('if-none-match'), file.etag)) return c.body(null, 304, headers);
  if (c.req.method === 'HEAD') return c.body(null, 200, headers);
  return c.body(file.body as Uint8Array<ArrayBuffer>, 200, headers);
}

/**
 * The shell page with relative asset URLs rewritten and `__PLATFORM_CONFIG__` injected. The template is
 * the build's `dist/shell/index.html`, else `public/index.html`; it is re-read when its mtime changes, so a
 * rebuild needs no restart.
 */
function shellPage(ctx: Pick<AppContext, 'distDir' | 'publicDir'>) {
  let cached: { file: string; mtimeMs: number; html: string } | undefined;
  return async function load(): Promise<string> {
    for (const file of [join(ctx.distDir, 'shell', 'index.html'), join(ctx.publicDir, 'index.html')]) {
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile()) continue;
      if (cached?.file !== file || cached.mtimeMs !== info.mtimeMs) {
        cached = { file, mtimeMs: info.mtimeMs, html: rewriteAssetUrls(await readFile(file, 'utf8')) };
      }
      return cached.html;
    }
    throw new PlatformError('shell_unavailable', 'The Desk shell is not built (npm run build).', {
      status: 503,
    });
  };
}

/** What {@link deskRoutes} reads: the folders it serves from, the installed apps, the directory and URLs. */
export type DeskRouteDeps = Pick<
  AppContext,
  'config' | 'apps' | 'appsDir' | 'distDir' | 'publicDir' | 'directory' | 'publicUrl' | 'releases'
>;

/**
 * Desk HTML and MFE assets (docs/http-api.md#desk-and-assets):
 * - `GET /desk` redirects to `/desk/`; `GET /desk/` and every deep link `/desk/*` outside `/desk/assets/`
 *   serve the shell page with `__PLATFORM_CONFIG__` (client-side routing), `Cache-Control: no-cache`;
 * - `GET /desk/assets/shell/*`: the shell build (`dist/shell`);
 * - `GET /desk/assets/<service>/<version>/*`: a file of a published release, checked against its hash;
 * - `GET /desk/assets/<service>/*`: the installed app's `static/mfe/` first, then, only when
 *   `desk.mfe_proxy_enabled`, the registered service's `apiUrl` origin (same path), else 404.
 * Traversal in any encoding is 400 `invalid_path` before anything is read; an unknown service is 404 before
 * any connection; see asset-proxy.ts for the proxy's rules.
 */
export function deskRoutes(ctx: DeskRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const loadShell = shellPage(ctx);
  const installed = new Map(ctx.apps.map((a) => [a.name, appDirOf(a, ctx.appsDir)]));
  const hosts = allowedHosts(ctx.config);

  // URL parsing has already collapsed `..` segments by now (`/desk/assets/crm/../../x` arrives as `/desk/x`,
  // a deep link); the raw request line still shows them, so traversal attempts are refused, not reinterpreted.
  routes.use('/desk/*', async (c, next) => {
    const raw = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
    if (raw !== undefined && hasDotSegment(raw)) {
      throw new PlatformError('invalid_path', 'The path is not allowed.', { status: 400 });
    }
    await next();
  });

  // The site's root is the Desk: a person typing the bare host lands on it rather than on a 404.
  routes.get('/', (c) => c.redirect('/desk/', 302));
  routes.get('/desk', (c) => c.redirect('/desk/', 301));

  routes.get('/desk/assets/shell/*', async (c) => {
    const segments = assetSegments(rawRest(c, '/desk/assets/shell/'));
    const file = await readStaticFile(join(ctx.distDir, 'shell'), segments, c.req.header('accept-encoding'));
    if (!file) throw notFound();
    return sendFile(c, file);
  });

  routes.get('/desk/assets/:service/*', async (c) => {
    const service = c.req.param('service');
    if (!SERVICE_NAME_PATTERN.test(service)) throw notFound();
    const segments = assetSegments(rawRest(c, `/desk/assets/${service}/`));
    const appDir = installed.get(service);
    // `/desk/assets/<service>/<version>/...`: a file of a published release (docs/mfe-teams.md#releases).
    if (ctx.releases && appDir !== undefined && isReleaseSegment(segments[0])) {
      return serveReleaseAsset(c, ctx.releases, service, segments);
    }
    if (appDir !== undefined) {
      const file = await readStaticFile(
        join(appDir, 'static', 'mfe'),
        segments,
        c.req.header('accept-encoding'),
      );
      if (file) {
        const response = sendFile(c, file);
        // Public build files: a Desk on another origin loads them with Subresource Integrity, which needs CORS.
        response.headers.set('Access-Control-Allow-Origin', '*');
        return response;
      }
    }
    if (!ctx.config.desk.mfe_proxy_enabled) throw notFound();
    const manifest = ctx.directory.get(service);
    if (!manifest) throw notFound();
    const upstreamOrigin = new URL(manifest.apiUrl).origin;
    // A service registered at this very origin would proxy to itself: its assets are local or missing.
    if (upstreamOrigin === new URL(ctx.publicUrl).origin || upstreamOrigin === new URL(c.req.url).origin) {
      throw notFound();
    }
    return proxyAsset({
      upstreamOrigin,
      path: `/desk/assets/${service}/${segments.map(encodeURIComponent).join('/')}`,
      headers: c.req.raw.headers,
      method: c.req.method === 'HEAD' ? 'HEAD' : 'GET',
      timeoutMs: ctx.config.desk.upstream_timeout_ms,
    });
  });

  routes.get('/desk/assets', () => {
    throw notFound();
  });

  routes.get('/desk/*', async (c) => {
    if (c.req.path.startsWith('/desk/assets/')) throw notFound();
    // The gateway URL is configuration: `server.public_url`, else the origin the browser used only when its
    // host is one this server answers to (the Host check already refused others), else the bind address.
    const requestUrl = new URL(c.req.url);
    const base = isAllowedHost(requestUrl, hosts) ? requestUrl.href : ctx.publicUrl;
    const payload = platformConfigPayload(ctx.config, base, VERSION);
    const html = injectBeforeFirstScript(await loadShell(), platformConfigMarkup(payload));
    c.header('Cache-Control', 'no-cache');
    for (const [name, value] of Object.entries(DESK_PAGE_HEADERS)) c.header(name, value);
    c.header(
      'Content-Security-Policy',
      deskContentSecurityPolicy(html, payload.gatewayUrl, ctx.directory.list(), payload.remoteOverrides),
    );
    return c.html(html);
  });

  return routes;
}
