import { readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** The codings the Desk's static files are offered in, best first. */
export type ContentEncoding = 'br' | 'gzip';

const SUFFIX: Record<ContentEncoding, string> = { br: '.br', gzip: '.gz' };

/**
 * The best coding an `Accept-Encoding` header allows (RFC 9110 section 12.5.3): brotli, then gzip; a coding
 * with `q=0` is refused, `*` stands for any coding not named. Undefined means identity.
 */
export function chooseEncoding(header: string | undefined): ContentEncoding | undefined {
  if (!header) return undefined;
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (coding: string) => q.get(coding) ?? q.get('*') ?? 0;
  const candidates = (['br', 'gzip'] as const).filter((c) => weight(c) > 0);
  return candidates.sort((a, b) => weight(b) - weight(a))[0];
}

/** Compressed bodies made at run time, by ETag and coding; bounded, oldest evicted first. */
const made = new Map<string, Uint8Array>();
const MAX_MADE = 64;
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Compresses `body` as the build does: brotli at its highest quality, gzip at level 9. */
export async function compress(body: Uint8Array, encoding: ContentEncoding): Promise<Uint8Array> {
  const out =
    encoding === 'br'
      ? await brotli(body, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 11,
            [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
          },
        })
      : await gzipAsync(body, { level: 9 });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * `file` in `encoding`: the precompressed `<file>.br` / `<file>.gz` the build wrote when it is not older
 * than the file, else `body` compressed here once per ETag.
 */
export async function compressedVariant(
  file: string,
  mtimeMs: number,
  etag: string,
  body: Uint8Array,
  encoding: ContentEncoding,
): Promise<Uint8Array> {
  const sibling = file + SUFFIX[encoding];
  const info = await stat(sibling).catch(() => undefined);
  if (info?.isFile() && info.mtimeMs >= mtimeMs) return new Uint8Array(await readFile(sibling));
  const key = `${etag}:${encoding}`;
  let out = made.get(key);
  if (!out) {
    out = await compress(body, encoding);
    if (made.size >= MAX_MADE) made.delete(made.keys().next().value!);
    made.set(key, out);
  }
  return out;
}
