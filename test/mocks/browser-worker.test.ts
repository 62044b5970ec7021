/**
 * The offline path in a real browser: headless Chromium loads a page whose bundle starts the MSW service worker
 * (mocks/browser.ts) and drives the SDK against it: discovery, the security config, login, the seeded records,
 * an encrypted create opened with the worker's WebCrypto key store, and a list, all answered by the
 * platform's own API app inside the page. Nothing runs on a server.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../e2e/support/browser';

const ROOT = join(import.meta.dirname, '..', '..');

/** The page's script: starts the worker, then runs the scenario and reports what it saw. */
const ENTRY = `
import { startMockWorker } from './mocks/browser';
import { DiscoveryClient } from './src/sdk/discovery';
import { frameworkMDataProvider, fetchServiceMetadata } from './src/sdk/data';
import { login } from './src/sdk/http';
import { securityClient } from './src/sdk/security';

window.runScenario = async () => {
  const { worker, env } = await startMockWorker();
  const contentTypes = {};
  worker.events.on('request:start', ({ request }) => {
    if (request.method === 'POST') contentTypes[new URL(request.url).pathname] = request.headers.get('content-type');
  });
  const discovery = DiscoveryClient.get_instance();
  const owners = await discovery.resolveMany(['crm.Customer', 'stock.Item', 'crm.Nothing']);
  await securityClient.load();
  await login('Administrator', 'admin');
  const meta = await fetchServiceMetadata(discovery.getManifest('crm').metaUrl);
  const schema = meta.doctypes.find((d) => d.name === 'crm.Customer');
  const provider = frameworkMDataProvider();
  const seeded = (await provider.getList({ resource: 'crm.Customer' })).total;
  const created = await provider.create({
    resource: 'crm.Customer', variables: { customer_name: 'Ada', email: 'ada@example.com' }, meta: { schema },
  });
  await provider.create({ resource: 'stock.Item', variables: { item_code: 'A', item_name: 'A' } });
  const list = await provider.getList({ resource: 'crm.Customer' });
  return {
    owners,
    mode: securityClient.config.mode,
    contentTypes,
    stored: await env.store.get(env.doctypes.get('crm.Customer'), created.data.name),
    seeded,
    total: list.total,
  };
};
`;

let server: Server;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  const bundle = await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"development"' },
  });
  const files: Record<string, [string, string | Uint8Array]> = {
    '/': [
      'text/html',
      '<!doctype html><html><body><script type="module" src="/app.js"></script></body></html>',
    ],
    '/app.js': ['text/javascript', bundle.outputFiles[0]!.contents],
    '/mockServiceWorker.js': ['text/javascript', readFileSync(join(ROOT, 'public', 'mockServiceWorker.js'))],
  };
  server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname];
    res.writeHead(file ? 200 : 404, { 'content-type': file?.[0] ?? 'text/plain' });
    res.end(file?.[1] ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('the MSW browser worker', () => {
  it('is served from public/ as the installed msw ships it (its install script, which would copy it, does not run)', () => {
    const shipped = readFileSync(join(ROOT, 'node_modules', 'msw', 'lib', 'mockServiceWorker.js'));
    expect(readFileSync(join(ROOT, 'public', 'mockServiceWorker.js')).equals(shipped)).toBe(true);
  });

  it('answers the SDK offline and decrypts its JWE with the WebCrypto key store', async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'runScenario' in window);
    const result = await page.evaluate(() =>
      (window as unknown as { runScenario(): Promise<unknown> }).runScenario(),
    );

    expect(result).toEqual({
      owners: { 'crm.Customer': 'crm', 'stock.Item': 'stock', 'crm.Nothing': null },
      mode: 'metadata',
      contentTypes: expect.objectContaining({
        '/api/gateway/discovery/query': 'application/json',
        '/api/method/login': 'application/json',
        '/api/resource/crm.Customer': 'application/jose',
        '/api/resource/stock.Item': 'application/json',
      }),
      stored: expect.objectContaining({ customer_name: 'Ada', email: 'ada@example.com' }),
      seeded: 3,
      total: 4,
    });
  }, 60_000);
});
