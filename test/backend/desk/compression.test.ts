/**
 * Static Desk files go out compressed when the client accepts it: brotli before gzip, a precompressed
 * sibling when the build wrote one, compressed bytes that decompress to the file, a distinct ETag per coding.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseEncoding } from '../../../backend/desk/compression';
import { readStaticFile } from '../../../backend/desk/static-files';

const dir = mkdtempSync(join(tmpdir(), 'desk-compression-'));
const script = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;
writeFileSync(join(dir, 'main.js'), script);
writeFileSync(join(dir, 'tiny.js'), 'void 0;\n');
writeFileSync(join(dir, 'pre.js'), script);
writeFileSync(join(dir, 'pre.js.br'), 'precompressed');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('chooseEncoding', () => {
  it('prefers brotli, honours q=0 and *, and falls back to identity', () => {
    expect(chooseEncoding('gzip, deflate, br')).toBe('br');
    expect(chooseEncoding('gzip, br;q=0')).toBe('gzip');
    expect(chooseEncoding('br;q=0.5, gzip')).toBe('gzip');
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('identity')).toBeUndefined();
    expect(chooseEncoding(undefined)).toBeUndefined();
  });
});

describe('readStaticFile with Accept-Encoding', () => {
  it('answers brotli or gzip bytes that decompress to the file, each with its own ETag', async () => {
    const plain = await readStaticFile(dir, ['main.js']);
    const br = await readStaticFile(dir, ['main.js'], 'gzip, br');
    const gz = await readStaticFile(dir, ['main.js'], 'gzip');
    expect(plain?.encoding).toBeUndefined();
    expect(plain?.negotiated).toBe(true);
    expect(br?.encoding).toBe('br');
    expect(Buffer.from(brotliDecompressSync(br!.body)).toString()).toBe(script);
    expect(gz?.encoding).toBe('gzip');
    expect(Buffer.from(gunzipSync(gz!.body)).toString()).toBe(script);
    expect(br!.body.byteLength).toBeLessThan(script.length / 10);
    expect(new Set([plain?.etag, br?.etag, gz?.etag]).size).toBe(3);
  });

  it('sends the precompressed sibling the build wrote', async () => {
    const file = await readStaticFile(dir, ['pre.js'], 'br');
    expect(Buffer.from(file!.body).toString()).toBe('precompressed');
  });

  it('leaves files under 1 KB as they are', async () => {
    const file = await readStaticFile(dir, ['tiny.js'], 'br');
    expect(file?.encoding).toBeUndefined();
    expect(file?.negotiated).toBeUndefined();
  });
});
