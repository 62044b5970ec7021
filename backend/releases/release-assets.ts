import { type Context, Hono } from 'hono';
import { chooseEncoding } from '../desk/compression';
import { assetSegments, contentTypeOf, etagMatches } from '../desk/static-files';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { RELEASE_VERSION_PATTERN } from './release-files';
import type { ReleaseService } from './release-service';

/** True when the first segment of an asset path names a release (`/desk/assets/<service>/<version>/...`). */
export function isReleaseSegment(segment: string | undefined): boolean {
  return segment !== undefined && RELEASE_VERSION_PATTERN.test(segment);
}

/**
 * `GET /desk/assets/<service>/<version>/<path>` (docs/mfe-teams.md#releases): a file of a kept release,
 * checked against its published hash on every request (500 `release_altered` when it differs, as long as
 * it differs), the build's precompressed `.br` / `.gz` sibling when the client accepts it (checked the same
 * way). A release's URL never changes content, so every file is cacheable for a year, `remoteEntry.js`
 * included: a tab that started with a release keeps getting that release's files. 404 otherwise.
 */
export async function serveReleaseAsset(
  c: Context<AppEnv>,
  releases: ReleaseService,
  service: string,
  segments: readonly string[],
): Promise<Response> {
  const [version, ...rest] = segments;
  const path = rest.join('/');
  const release = version === undefined ? undefined : await releases.get(service, version);
  if (release?.state !== 'published' || !release.files.some((f) => f.path === path)) {
    throw new PlatformError('not_found', 'No such asset.', { status: 404 });
  }
  const encoding = chooseEncoding(c.req.header('accept-encoding'));
  const suffix = encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : undefined;
  const variant = suffix && release.files.find((f) => f.path === `${path}${suffix}`);
  const served = variant || release.files.find((f) => f.path === path)!;
  const body = await releases.readFile(service, release.version, served.path);
  if (!body) throw new PlatformError('not_found', 'No such asset.', { status: 404 });
  const etag = `"${served.sha384.slice(7, 34)}"`;
  const headers: Record<string, string> = {
    'Content-Type': contentTypeOf(path),
    'Cache-Control': 'public, max-age=31536000, immutable',
    ETag: etag,
    'X-Content-Type-Options': 'nosniff',
    // Public build files: a Desk on another origin loads them with Subresource Integrity, which needs CORS.
    'Access-Control-Allow-Origin': '*',
    Vary: 'Accept-Encoding',
    ...(variant ? { 'Content-Encoding': encoding! } : {}),
  };
  if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
  if (c.req.method === 'HEAD') return c.body(null, 200, headers);
  return c.body(body as Uint8Array<ArrayBuffer>, 200, headers);
}

/**
 * `GET /desk/assets/<service>/<version>/...` on a MACROSERVICE gateway (docs/operators.md#releases-in-macroservice):
 * the release's record is read here, its file is fetched from the service owning it and checked against the
 * published hash there on every request ({@link serveReleaseAsset}). A path whose first segment is not a
 * release version is left to the routes after it (the service's own build, through the asset proxy).
 */
export function releaseAssetRoutes(releases: ReleaseService): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/desk/assets/:service/*', async (c, next) => {
    const service = c.req.param('service');
    const prefix = `/desk/assets/${service}/`;
    const pathname = new URL(c.req.url).pathname;
    const segments = assetSegments(pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '');
    if (!isReleaseSegment(segments[0])) return next();
    return serveReleaseAsset(c, releases, service, segments);
  });
  return routes;
}
