import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { PlatformError } from '../http/errors';
import { type ContentEncoding, chooseEncoding, compressedVariant } from './compression';

/** Content types of the files the Desk serves; anything else is `application/octet-stream`. */
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/** The content type for a file name. */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** A content-hashed build file (`main.3f2a1b9c.js`, `114.194c793882.js`): safe to cache forever. */
const HASHED = /[.-][0-9a-f]{8,}\.[a-z0-9]+$/i;

/**
 * Cache policy of an asset (docs/security.md#the-asset-proxy-is-not-an-open-proxy): content-hashed files are
 * immutable for a year; `remoteEntry.js` and every other unhashed file must be revalidated (`no-cache`, with
 * an ETag).
 */
export function cacheControlOf(file: string): string {
  const base = file.slice(file.lastIndexOf('/') + 1);
  if (base !== 'remoteEntry.js' && HASHED.test(base)) return 'public, max-age=31536000, immutable';
  return 'no-cache';
}

function badPath(): PlatformError {
  return new PlatformError('invalid_path', 'The asset path is not allowed.', { status: 400 });
}

/**
 * Splits the still percent-encoded rest of an asset URL into safe segments, refusing traversal in any
 * encoding (docs/security.md#the-asset-proxy-is-not-an-open-proxy): every segment is decoded once and must
 * not be empty, `.` or `..`, start with a dot, or contain `/`, `\`, NUL or another control character;
 * `%2e%2e`, `..%5c`, `%00` and `%2f` all end here. Throws 400 `invalid_path`; nothing has been read at that
 * point.
 */
export function assetSegments(rawRest: string): string[] {
  if (rawRest === '' || rawRest.length > 1024) throw badPath();
  return rawRest.split('/').map((raw) => {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      throw badPath();
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (segment === '' || segment.startsWith('.') || /[/\\\u0000-\u001f\u007f]/.test(segment))
      throw badPath();
    return segment;
  });
}

/** A file ready to send. */
export interface StaticFile {
  body: Uint8Array;
  etag: string;
  contentType: string;
  cacheControl: string;
  /** `Content-Encoding` of `body` when it is a compressed variant of the file. */
  encoding?: ContentEncoding;
  /** True when the answer depends on `Accept-Encoding` (send `Vary: Accept-Encoding`). */
  negotiated?: boolean;
}

const etags = new Map<string, { mtimeMs: number; size: number; etag: string }>();

/**
 * Reads `segments` under `baseDir`, or undefined when there is no such regular file. The resolved path is
 * checked to stay inside `baseDir` even after the segment checks (defence in depth). ETags are content
 * hashes, cached per path by mtime and size. With an `Accept-Encoding` header, a compressible file is
 * answered in brotli or gzip (docs/performance.md#compression): the build's precompressed `<file>.br` /
 * `<file>.gz` when present, else compressed once and kept in memory.
 */
export async function readStaticFile(
  baseDir: string,
  segments: string[],
  acceptEncoding?: string,
): Promise<StaticFile | undefined> {
  const base = resolve(baseDir);
  const file = resolve(join(base, ...segments));
  if (!file.startsWith(base + sep)) return undefined;
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch {
    return undefined;
  }
  if (!info.isFile()) return undefined;
  const body = new Uint8Array(await readFile(file));
  let cached = etags.get(file);
  if (!cached || cached.mtimeMs !== info.mtimeMs || cached.size !== info.size) {
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    cached = { mtimeMs: info.mtimeMs, size: info.size, etag };
    etags.set(file, cached);
  }
  const plain: StaticFile = {
    body,
    etag: cached.etag,
    contentType: contentTypeOf(file),
    cacheControl: cacheControlOf(file),
  };
  if (!isCompressible(plain.contentType, body.byteLength)) return plain;
  plain.negotiated = true;
  const encoding = chooseEncoding(acceptEncoding);
  if (!encoding) return plain;
  const variant = await compressedVariant(file, info.mtimeMs, cached.etag, body, encoding);
  // A representation in another coding is another entity: its ETag differs (RFC 9110 section 8.8.3).
  return { ...plain, body: variant, encoding, etag: `${cached.etag.slice(0, -1)}-${encoding}"` };
}

/** Text formats worth compressing; tiny files are sent as they are (the headers would outweigh the gain). */
function isCompressible(contentType: string, size: number): boolean {
  if (size < 1024) return false;
  return /^(text\/|application\/(json|javascript|wasm)|image\/svg)/.test(contentType);
}

/** True when an `If-None-Match` header matches the ETag (RFC 9110 section 13.1.2, weak comparison). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bare);
}
