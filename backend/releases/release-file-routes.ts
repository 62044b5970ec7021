import { type Context, Hono } from 'hono';
import { INTERNAL_HEADERS } from '../auth/internal-auth';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import type { ReleaseFileStore } from './release-file-store';
import { isReleaseFilePath, RELEASE_VERSION_PATTERN } from './release-files';

/** Path prefix, on a MACROSERVICE service, of the files of its remote's releases (signed requests only). */
export const RELEASE_FILES_PATH = '/api/release-files';

const SHA384 = /^sha384-[A-Za-z0-9+/]{64}$/;

function notFound(): PlatformError {
  return new PlatformError('not_found', 'No such release file.', { status: 404 });
}

/** The version and file path of a request under {@link RELEASE_FILES_PATH}; 404 when either is not valid. */
function target(c: Context<AppEnv>): { version: string; path: string } {
  const rest = new URL(c.req.url).pathname.slice(RELEASE_FILES_PATH.length + 1);
  const slash = rest.indexOf('/');
  const version = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash));
  const path =
    slash < 0
      ? ''
      : rest
          .slice(slash + 1)
          .split('/')
          .map(decodeURIComponent)
          .join('/');
  if (!RELEASE_VERSION_PATTERN.test(version) || (path !== '' && !isReleaseFilePath(path))) throw notFound();
  return { version, path };
}

function query(c: Context<AppEnv>, name: string, pattern: RegExp): string {
  const value = c.req.query(name) ?? '';
  if (!pattern.test(value)) {
    throw new PlatformError('validation_failed', `The ${name} parameter is not valid.`, { status: 400 });
  }
  return value;
}

/**
 * The files of a service's own releases (docs/operators.md#releases-in-macroservice), kept in its data
 * directory and written and read only for its gateways (a request they signed; the trust check has already
 * refused a signature that does not verify, 401 `untrusted_caller` to an unsigned one). The hashes are the
 * gateway's (fixed at publication in the release's record), so each request names the one it expects:
 * - `PUT <prefix>/<version>/<path>` (raw bytes): stores a whole file, once (409 `release_file_mismatch` when
 *   another one is there);
 * - `PUT ...?offset=&size=&sha384=`: one part of a large file; `{ data: { outcome } }`;
 * - `GET ...?sha384=`: the bytes, hashed again on this read: 500 `release_altered` when they differ, 404
 *   when there is no such file;
 * - `DELETE <prefix>/<version>`: the release's files (retention).
 */
export function releaseFileRoutes(service: string, files: ReleaseFileStore): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use(`${RELEASE_FILES_PATH}/*`, async (c, next) => {
    if (c.req.header(INTERNAL_HEADERS.signature) === undefined) {
      throw new PlatformError('untrusted_caller', 'This service only answers requests from its gateway.', {
        status: 401,
      });
    }
    c.header('Cache-Control', 'no-store');
    await next();
  });

  routes.put(`${RELEASE_FILES_PATH}/*`, async (c) => {
    const { version, path } = target(c);
    if (path === '') throw notFound();
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (c.req.query('offset') !== undefined) {
      const offset = Number(query(c, 'offset', /^\d{1,10}$/));
      const size = Number(query(c, 'size', /^\d{1,10}$/));
      const sha384 = query(c, 'sha384', SHA384);
      const outcome = await files.appendPart(service, version, { path, size, sha384 }, offset, bytes);
      return c.json({ data: { outcome } });
    }
    try {
      await files.write(service, version, path, bytes);
    } catch {
      throw new PlatformError('release_file_mismatch', 'Another file is already stored at this path.', {
        status: 409,
      });
    }
    return c.body(null, 204);
  });

  routes.get(`${RELEASE_FILES_PATH}/*`, async (c) => {
    const { version, path } = target(c);
    if (path === '') throw notFound();
    const bytes = await files.read(service, version, path, query(c, 'sha384', SHA384));
    if (bytes === undefined) throw notFound();
    if (bytes === 'altered') {
      throw new PlatformError('release_altered', 'This file of the release was changed after publication.', {
        status: 500,
      });
    }
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'application/octet-stream' });
  });

  routes.delete(`${RELEASE_FILES_PATH}/*`, async (c) => {
    const { version, path } = target(c);
    if (path !== '') throw notFound();
    await files.remove(service, version);
    return c.body(null, 204);
  });
  return routes;
}
