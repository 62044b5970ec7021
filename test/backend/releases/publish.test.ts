import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha384Of } from '../../../backend/releases/release-files';
import { userWithRoles } from '../../helpers/roles';
import { FAKE_REMOTE_ENTRY } from '../../helpers/test-app';
import { act, buildFiles, createReleaseTestApp, publish, type ReleaseTestApp } from './support';

let t: ReleaseTestApp;
beforeEach(async () => {
  t = await createReleaseTestApp();
});
afterEach(async () => {
  await t.close();
});

async function manifestOf(service: string) {
  const res = await t.request('POST', '/api/gateway/discovery/query', {
    body: { resources: [], services: { [service]: 0 } },
    anonymous: true,
  });
  return (
    (await res.json()) as { services: Record<string, { url: string; integrity?: string; rev: number }> }
  ).services[service]!;
}

describe('publishing a release', () => {
  it('stores every file under <data_dir>/releases/<service>/<version>/ with the hashes fixed at publish', async () => {
    const files = buildFiles('one');
    const version = await publish(t, files, { packageVersion: '1.2.0' });
    expect(version).toMatch(/^1\.2\.0\+[0-9a-f]{12}$/);
    for (const [path, text] of Object.entries(files)) {
      expect(readFileSync(join(t.dataDir, 'releases', 'crm', version, path), 'utf8')).toBe(text);
    }
    const listed = await t.request('GET', '/api/releases/crm');
    const { data } = (await listed.json()) as {
      data: {
        releases: Array<{ version: string; state: string; publisher: string; fileCount: number }>;
        history: Array<{ action: string }>;
      };
    };
    expect(data.releases).toEqual([
      expect.objectContaining({
        version,
        state: 'published',
        publisher: 'Administrator',
        fileCount: 3,
        buildVersion: 'one',
      }),
    ]);
    expect(data.history.map((h) => h.action)).toEqual(['publish']);
    // The same build again is the same release.
    expect(await publish(t, files, { packageVersion: '1.2.0' })).toBe(version);
  });

  it('refuses uploaded bytes that are not the declared ones, naming the file', async () => {
    const staged = await t.request('POST', '/api/releases/crm/publish', {
      body: {
        packageVersion: '1.0.0',
        files: [{ path: 'remoteEntry.js', sha384: sha384Of(new TextEncoder().encode('a')), size: 1 }],
        fingerprint: { doctypes: {}, methods: {} },
      },
    });
    const { data } = (await staged.json()) as { data: { version: string; missing: string[] } };
    expect(data.missing).toEqual(['remoteEntry.js']);
    const res = await t.request('POST', '/api/releases/crm/upload', {
      body: {
        version: data.version,
        files: [{ path: 'remoteEntry.js', data: Buffer.from('b').toString('base64') }],
      },
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      error: { code: 'release_file_mismatch', fields: [{ field: 'remoteEntry.js', code: 'hash_mismatch' }] },
    });
    expect(existsSync(join(t.dataDir, 'releases', 'crm', data.version, 'remoteEntry.js'))).toBe(false);
    // A staged release cannot be promoted.
    const promoted = await act(t, 'promote', { version: data.version });
    expect(promoted.status).toBe(409);
    expect(((await promoted.json()) as { error: { code: string } }).error.code).toBe('release_incomplete');
  });

  it('is for System Managers only', async () => {
    const clerk = await userWithRoles(t.ctx, 'clerk', ['Sales User']);
    const res = await t.request('GET', '/api/releases/crm', { headers: { authorization: clerk } });
    expect(res.status).toBe(403);
    const anonymous = await t.request('GET', '/api/releases/crm', { anonymous: true });
    expect(anonymous.status).toBe(401);
    const manager = await userWithRoles(t.ctx, 'ops', ['System Manager']);
    expect(
      (await t.request('GET', '/api/releases/crm', { headers: { authorization: manager } })).status,
    ).toBe(200);
  });
});

describe('serving releases', () => {
  it('keeps discovery on the static/mfe scan until a release is promoted, then hands out the release', async () => {
    const before = await manifestOf('crm');
    expect(before.url).toBe('http://desk.test/desk/assets/crm/remoteEntry.js');
    expect(before.integrity).toBe(sha384Of(new TextEncoder().encode(FAKE_REMOTE_ENTRY)));

    const files = buildFiles('one');
    const version = await publish(t, files);
    expect((await manifestOf('crm')).url).toBe(before.url);

    expect((await act(t, 'promote', { version })).status).toBe(200);
    const after = await manifestOf('crm');
    expect(after.url).toBe(`http://desk.test/desk/assets/crm/${version}/remoteEntry.js`);
    expect(after.integrity).toBe(sha384Of(new TextEncoder().encode(files['remoteEntry.js']!)));
    expect(after.rev).toBeGreaterThan(before.rev);

    const entry = await t.request('GET', `/desk/assets/crm/${version}/remoteEntry.js`, { anonymous: true });
    expect(entry.status).toBe(200);
    expect(entry.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await entry.text()).toBe(files['remoteEntry.js']);
    const chunk = await t.request('GET', `/desk/assets/crm/${version}/chunk.0123abcd.js`, {
      anonymous: true,
    });
    expect(await chunk.text()).toBe(files['chunk.0123abcd.js']);
    // The unversioned path still serves the app's own static/mfe build.
    const plain = await t.request('GET', '/desk/assets/crm/remoteEntry.js', { anonymous: true });
    expect(await plain.text()).toBe(FAKE_REMOTE_ENTRY);
    const missing = await t.request('GET', `/desk/assets/crm/${version}/nope.js`, { anonymous: true });
    expect(missing.status).toBe(404);
  });

  it('refuses a published file changed on disk on every load, also after a rescan and on a conditional request', async () => {
    const files = buildFiles('one');
    const version = await publish(t, files);
    await act(t, 'promote', { version });
    const file = join(t.dataDir, 'releases', 'crm', version, 'remoteEntry.js');
    writeFileSync(file, 'window.evil = true;\n');
    const directory = t.ctx.directory as { refresh?: () => boolean };
    for (let load = 0; load < 3; load++) {
      directory.refresh?.();
      const res = await t.request('GET', `/desk/assets/crm/${version}/remoteEntry.js`, { anonymous: true });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({
        error: { code: 'release_altered', message: expect.any(String) },
      });
      // The published hash is what discovery keeps announcing: no rescan adopts the new bytes.
      expect((await manifestOf('crm')).integrity).toBe(
        sha384Of(new TextEncoder().encode(files['remoteEntry.js']!)),
      );
    }
    const conditional = await t.request('GET', `/desk/assets/crm/${version}/remoteEntry.js`, {
      anonymous: true,
      headers: { 'if-none-match': '*' },
    });
    expect(conditional.status).toBe(500);
    // A published file deleted from disk is refused the same way, not passed off as never published.
    rmSync(join(t.dataDir, 'releases', 'crm', version, 'chunk.0123abcd.js'));
    const gone = await t.request('GET', `/desk/assets/crm/${version}/chunk.0123abcd.js`, { anonymous: true });
    expect(gone.status).toBe(500);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('release_altered');
  });
});

describe('compressed copies in a release', () => {
  it('serves the build’s .br copy to a client that accepts brotli, checked against its own hash', async () => {
    const { brotliCompressSync } = await import('node:zlib');
    const entry = `window.big = ${JSON.stringify('x'.repeat(4000))};\n`;
    const br = new Uint8Array(brotliCompressSync(Buffer.from(entry)));
    const version = await publish(t, { 'remoteEntry.js': entry, 'remoteEntry.js.br': br });
    const compressed = await t.request('GET', `/desk/assets/crm/${version}/remoteEntry.js`, {
      anonymous: true,
      headers: { 'accept-encoding': 'br' },
    });
    expect(compressed.headers.get('content-encoding')).toBe('br');
    expect(compressed.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const plain = await t.request('GET', `/desk/assets/crm/${version}/remoteEntry.js`, { anonymous: true });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(entry);

    writeFileSync(join(t.dataDir, 'releases', 'crm', version, 'remoteEntry.js.br'), 'tampered');
    const altered = await t.request('GET', `/desk/assets/crm/${version}/remoteEntry.js`, {
      anonymous: true,
      headers: { 'accept-encoding': 'br' },
    });
    expect(altered.status).toBe(500);
  });
});

describe('a file too large for one request', () => {
  it('is uploaded in parts, in order, and checked once whole', async () => {
    const big = new TextEncoder().encode('0123456789abcdef'.repeat(200)); // 3200 bytes
    const entry = new TextEncoder().encode('window.entry = 1;\n');
    const staged = await t.request('POST', '/api/releases/crm/publish', {
      body: {
        packageVersion: '3.0.0',
        files: [
          { path: 'remoteEntry.js', sha384: sha384Of(entry), size: entry.byteLength },
          { path: 'vendor.0badc0de.js', sha384: sha384Of(big), size: big.byteLength },
        ],
        fingerprint: { doctypes: {}, methods: {} },
      },
    });
    const { version } = ((await staged.json()) as { data: { version: string } }).data;
    const part = (offset: number, end: number) => ({
      path: 'vendor.0badc0de.js',
      offset,
      data: Buffer.from(big.subarray(offset, end)).toString('base64'),
    });
    const upload = (files: unknown[]) =>
      t.request('POST', '/api/releases/crm/upload', { body: { version, files } });

    expect((await upload([part(0, 1000)])).status).toBe(200);
    const skipped = await upload([part(2000, 3200)]);
    expect(skipped.status).toBe(422);
    expect(await skipped.json()).toMatchObject({
      error: {
        code: 'release_file_mismatch',
        fields: [{ field: 'vendor.0badc0de.js', code: 'offset_mismatch' }],
      },
    });
    expect((await upload([part(1000, 2000)])).status).toBe(200);
    const last = await upload([
      part(2000, 3200),
      { path: 'remoteEntry.js', data: Buffer.from(entry).toString('base64') },
    ]);
    expect(((await last.json()) as { data: { state: string; missing: string[] } }).data).toEqual({
      version,
      state: 'published',
      missing: [],
    });
    expect(
      new Uint8Array(readFileSync(join(t.dataDir, 'releases', 'crm', version, 'vendor.0badc0de.js'))),
    ).toEqual(big);
  });

  it('refuses parts that do not add up to the declared bytes', async () => {
    const declared = new TextEncoder().encode('a'.repeat(2000));
    const staged = await t.request('POST', '/api/releases/crm/publish', {
      body: {
        packageVersion: '3.0.1',
        files: [{ path: 'remoteEntry.js', sha384: sha384Of(declared), size: declared.byteLength }],
        fingerprint: { doctypes: {}, methods: {} },
      },
    });
    const { version } = ((await staged.json()) as { data: { version: string } }).data;
    const sent = new TextEncoder().encode('b'.repeat(2000));
    for (const offset of [0, 1000]) {
      const res = await t.request('POST', '/api/releases/crm/upload', {
        body: {
          version,
          files: [
            {
              path: 'remoteEntry.js',
              offset,
              data: Buffer.from(sent.subarray(offset, offset + 1000)).toString('base64'),
            },
          ],
        },
      });
      if (offset === 1000) {
        expect(res.status).toBe(422);
        expect(await res.json()).toMatchObject({
          error: { fields: [{ field: 'remoteEntry.js', code: 'hash_mismatch' }] },
        });
      }
    }
    expect(existsSync(join(t.dataDir, 'releases', 'crm', version, 'remoteEntry.js'))).toBe(false);
  });
});
