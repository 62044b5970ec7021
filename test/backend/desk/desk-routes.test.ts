import { rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../backend/server';
import { createTestApp, FAKE_REMOTE_ENTRY, makeAppsFixture, type TestApp } from '../../helpers/test-app';

const HOSTILE = '</script><script>alert(1)</script>';
let t: TestApp;
let appsDir: string;
beforeAll(async () => {
  appsDir = makeAppsFixture({ crm: true, stock: false });
  writeFileSync(join(appsDir, 'crm', 'static', 'secret.txt'), 'TOP-SECRET-OUTSIDE-MFE');
  writeFileSync(join(appsDir, 'crm', 'static', 'mfe', '.env'), 'TOP-SECRET-DOTFILE');
  t = await createTestApp({
    appsDir,
    config: { 'desk.core_services': ['crm', HOSTILE, 'line\u2028sep\u2029'] },
  });
});
afterAll(async () => {
  await t?.close();
  rmSync(appsDir, { recursive: true, force: true });
});

function configBlock(html: string): string {
  const match = /<script type="application\/json" id="__PLATFORM_CONFIG__">(.*?)<\/script>/s.exec(html);
  expect(match).not.toBeNull();
  return match![1]!;
}

describe('GET /desk and /desk/', () => {
  it('redirects /desk to /desk/', async () => {
    const res = await t.request('GET', '/desk');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/desk/');
  });

  it('redirects the site root to the Desk', async () => {
    const res = await t.request('GET', '/');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/desk/');
  });

  it('injects __PLATFORM_CONFIG__ before the first script and rewrites relative asset URLs', async () => {
    const res = await t.request('GET', '/desk/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    const config = JSON.parse(configBlock(html));
    expect(config).toMatchObject({
      mode: 'monolith',
      gatewayUrl: 'http://desk.test',
      deskBase: '/desk/',
      securityConfigUrl: 'http://desk.test/api/v1/security/config',
    });
    expect(typeof config.version).toBe('string');
    const blockAt = html.indexOf('id="__PLATFORM_CONFIG__"');
    const exposeAt = html.indexOf('window.__PLATFORM_CONFIG__=');
    const bundleAt = html.indexOf('src="/desk/assets/shell/main.3f2a1b9c.js"');
    expect(blockAt).toBeGreaterThan(0);
    expect(exposeAt).toBeGreaterThan(blockAt);
    expect(bundleAt).toBeGreaterThan(exposeAt);
    expect(html).toContain('href="/desk/assets/shell/main.css"');
  });

  it('escapes a hostile config value in the HTML and keeps it intact through JSON.parse', async () => {
    const html = await (await t.request('GET', '/desk/')).text();
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain('\u2028');
    expect(html).not.toContain('\u2029');
    const block = configBlock(html);
    expect(block).not.toMatch(/[<>&]/);
    expect(JSON.parse(block).coreServices).toEqual(['crm', HOSTILE, 'line\u2028sep\u2029']);
  });

  it('answers unknown routes outside the Desk with the JSON 404', async () => {
    for (const path of ['/nope', '/api/nope', '/desk-other']) {
      const res = await t.request('GET', path);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });

  it('serves the shell for deep links below /desk/', async () => {
    const res = await t.request('GET', '/desk/app/crm.Customer/CUST-00001');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('id="__PLATFORM_CONFIG__"');
  });
});

describe('GET /desk/assets/...', () => {
  it('serves shell assets with an immutable cache for hashed files', async () => {
    const res = await t.request('GET', '/desk/assets/shell/main.3f2a1b9c.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const css = await t.request('GET', '/desk/assets/shell/main.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('no-cache');
  });

  it('serves remoteEntry.js with no-cache and an ETag, and 304 on If-None-Match', async () => {
    const res = await t.request('GET', '/desk/assets/crm/remoteEntry.js');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(FAKE_REMOTE_ENTRY);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const again = await t.request('GET', '/desk/assets/crm/remoteEntry.js', {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const chunk = await t.request('GET', '/desk/assets/crm/chunk.abcdef12.js');
    expect(chunk.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await t.request('HEAD', '/desk/assets/crm/remoteEntry.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^".+"$/);
    expect(await res.text()).toBe('');
  });

  it('answers a missing asset with a JSON 404 that is not cached', async () => {
    for (const path of [
      '/desk/assets/crm/missing.js',
      '/desk/assets/stock/remoteEntry.js',
      '/desk/assets/shell/x.js',
    ]) {
      const res = await t.request('GET', path);
      expect(res.status).toBe(404);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });

  it.each([
    '/desk/assets/crm/%2e%2e/secret.txt',
    '/desk/assets/crm/%2E%2E/secret.txt',
    '/desk/assets/crm/..%2fsecret.txt',
    '/desk/assets/crm/..%5csecret.txt',
    '/desk/assets/crm/..%5c..%5cstatic%5csecret.txt',
    '/desk/assets/crm/remoteEntry.js%00.png',
    '/desk/assets/crm/%2fetc%2fpasswd',
    '/desk/assets/crm/.env',
    '/desk/assets/crm/%252e%252e/secret.txt',
    '/desk/assets/shell/..%2f..%2fpackage.json',
    '/desk/assets/crm/../static/secret.txt',
  ])('refuses %s without reading outside the base', async (path) => {
    const res = await t.request('GET', path);
    expect([400, 404]).toContain(res.status);
    const text = await res.text();
    expect(text).not.toContain('TOP-SECRET');
    expect(JSON.parse(text).error.code).toMatch(/^(invalid_path|invalid_characters|not_found)$/);
  });

  it('refuses raw traversal sent as is to a real server', async () => {
    const running = await startServer(t.app, { host: '127.0.0.1', port: 0 });
    try {
      for (const path of [
        '/desk/assets/crm/../static/secret.txt',
        '/desk/assets/crm/..\\static\\secret.txt',
        '/desk/assets/crm/../../crm/static/secret.txt',
      ]) {
        const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port: running.port, path, method: 'GET' }, (res) => {
            let body = '';
            res.on('data', (c) => {
              body += c;
            });
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          });
          req.on('error', reject);
          req.end();
        });
        expect([400, 404]).toContain(status);
        expect(body).not.toContain('TOP-SECRET');
      }
    } finally {
      await running.close();
    }
  });
});
