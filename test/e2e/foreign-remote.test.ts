/**
 * Remotes from a team's own bundler configuration, in Chromium (docs/mfe-teams.md#a-remote-from-your-own-bundler-config):
 * examples/foreign-remote, built by plain webpack with `@module-federation/enhanced`, renders its form in the
 * Desk from an app folder and saves through the Desk's Refine; the same remote left as the Module Federation
 * community builds it (container `app2`, `./Widget`), one requiring React 18, and one built with webpack's
 * `eval` devtool are each refused with their own diagnosis: the user sees the usual contained notice, the
 * developer details and the console name the failed requirement.
 */
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, savedRecordOpened, screenshot } from './support/browser';
import {
  buildRemoteAppFolder,
  remoteAppParent,
  type ServedApps,
  serveApps,
  signInAsAdministrator,
  stylesConfined,
} from './support/remote-app-folder';

const REACT_18: Array<[string, string, string]> = [
  [
    'webpack.config.mjs',
    "react: singleton('^19.0.0')",
    "react: { singleton: true, requiredVersion: '^18.2.0', version: '18.3.1' }",
  ],
  [
    'webpack.config.mjs',
    "'react-dom': singleton('^19.0.0')",
    "'react-dom': { singleton: true, requiredVersion: '^18.2.0', version: '18.3.1' }",
  ],
];

let parent: ReturnType<typeof remoteAppParent>;
let server: ServedApps;
let browser: Browser;
let page: Page;
const consoleLines: string[] = [];
/** Paths of every request for a remote's files (`/desk/assets/<service>/...`). */
const assetRequests: string[] = [];

beforeAll(async () => {
  parent = remoteAppParent();
  const folders = [
    buildRemoteAppFolder(parent.dir, 'gadgets'),
    // The same sources built by Rspack (`@rspack/core`) with the enhanced plugin's Rspack entry.
    buildRemoteAppFolder(parent.dir, 'rsgadgets', [], 'rspack'),
    // As module-federation-examples' app2 is: a container of its own name exposing `./Widget`.
    // The refused variants are development builds (no minifier): what is refused does not depend on it.
    buildRemoteAppFolder(parent.dir, 'plain', [
      ['webpack.config.mjs', "mode: 'production'", "mode: 'development'"],
      ['webpack.config.mjs', "name: 'plain'", "name: 'app2'"],
      ['webpack.config.mjs', "'./views': './src/views.tsx'", "'./Widget': './src/views.tsx'"],
    ]),
    buildRemoteAppFolder(parent.dir, 'legacy', [
      ['webpack.config.mjs', "mode: 'production'", "mode: 'development'"],
      ...REACT_18,
    ]),
    // A development build with webpack's default devtool for it: eval.
    buildRemoteAppFolder(parent.dir, 'evaldev', [
      ['webpack.config.mjs', "mode: 'production'", "mode: 'development'"],
      ['webpack.config.mjs', 'devtool: false', "devtool: 'eval'"],
    ]),
  ];
  server = await serveApps(folders, 'evaldev.Gadget');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('console', (message: ConsoleMessage) => consoleLines.push(message.text()));
  page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`));
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/desk/assets/') && !path.startsWith('/desk/assets/shell/')) assetRequests.push(path);
  });
  await signInAsAdministrator(page, server.deskUrl);
  // The developer details show the failed requirement's code.
  await page.evaluate(() => localStorage.setItem('desk.developer-details', 'on'));
  // Bundling the remotes and a first build of the Desk take minutes on a busy two-core machine.
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  parent?.dispose();
});

/** Opens `service`'s Gadget form and returns the contained notice shown instead of the remote's form. */
async function refusedNotice(service: string) {
  consoleLines.length = 0;
  await page.goto(`${server.deskUrl}#/app/${service}.Gadget/new`);
  await page.reload();
  const notice = page.locator(`.desk-remote-error[data-remote="${service}"]`);
  await notice.waitFor();
  expect(await notice.textContent()).toContain('Part of this page could not be loaded.');
  return notice;
}

describe('a remote from a plain webpack configuration', () => {
  it('renders its own form in the Desk from an app folder and saves through the Desk’s data provider', async () => {
    consoleLines.length = 0;
    await page.goto(`${server.deskUrl}#/app/gadgets.Gadget/new`);
    await page.getByText('gadgets form from its own bundler config').waitFor();
    await stylesConfined(page, 'gadgets');
    // Its own stylesheet (added to document.head as style-loader would) styles its form.
    expect(
      await page.evaluate(
        () => getComputedStyle(document.querySelector('[data-desk-remote-root="gadgets"] form')!).display,
      ),
    ).toBe('grid');
    await page.getByLabel('Title').fill('Sprocket');
    const saved = page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/resource/gadgets.Gadget',
    );
    await page.getByRole('button', { name: 'Save gadget' }).click();
    expect((await saved).status()).toBe(201);
    await savedRecordOpened(page, 'gadgets.Gadget');
    await page.goto(`${server.deskUrl}#/app/gadgets.Gadget`);
    await page.getByRole('cell', { name: 'Sprocket', exact: true }).waitFor();
    await screenshot(page, 'foreign-remote-gadgets-list');
    // Nothing went wrong for this remote (the refused ones, loaded by the home page's widgets, log their own).
    const problems = consoleLines.filter(
      (line) => /Invalid hook call/.test(line) || (/remote_|RUNTIME-/.test(line) && /\bgadgets\b/.test(line)),
    );
    expect(problems).toEqual([]);
  });

  it('built by Rspack: renders its own form, styled by its own stylesheet', async () => {
    await page.goto(`${server.deskUrl}#/app/rsgadgets.Gadget/new`);
    await page.getByText('rsgadgets form from its own bundler config').waitFor();
    await stylesConfined(page, 'rsgadgets');
    expect(
      await page.evaluate(
        () => getComputedStyle(document.querySelector('[data-desk-remote-root="rsgadgets"] form')!).display,
      ),
    ).toBe('grid');
    await screenshot(page, 'foreign-remote-rspack-form');
  });

  it('unadapted (container app2, ./Widget): remote_container_missing, named in the details and on the console', async () => {
    const notice = await refusedNotice('plain');
    expect(await notice.locator('[data-diagnosis]').textContent()).toBe('remote_container_missing');
    expect(await notice.textContent()).toContain('named "app2", not "plain"');
    expect(await notice.textContent()).toContain('it exposes ./Widget, not ./views');
    expect(consoleLines.some((line) => line.startsWith('[desk] remote_container_missing: plain:'))).toBe(
      true,
    );
    await screenshot(page, 'foreign-remote-unadapted');
  });

  it('React 18: refused before it runs, naming both versions, with no crash inside React', async () => {
    const notice = await refusedNotice('legacy');
    expect(await notice.locator('[data-diagnosis]').textContent()).toBe('remote_shared_incompatible');
    const text = (await notice.textContent()) ?? '';
    expect(text).toMatch(/requires react \^18\.2\.0, but the Desk runs react 19\.\d+\.\d+/);
    expect(consoleLines.some((line) => line.includes('remote_shared_incompatible: legacy:'))).toBe(true);
    expect(consoleLines.filter((line) => /ReactCurrentOwner|Invalid hook call/.test(line))).toEqual([]);
    // Nothing of the remote's code ran: of its files, at most the entry was hinted and the manifest read.
    const legacyFiles = new Set(assetRequests.filter((p) => p.startsWith('/desk/assets/legacy/')));
    expect([...legacyFiles].every((p) => /\/(remoteEntry|mf-manifest)\.js(on)?$/.test(p))).toBe(true);
    expect(legacyFiles.has('/desk/assets/legacy/mf-manifest.json')).toBe(true);
    await screenshot(page, 'foreign-remote-react18');
  });

  it('an eval devtool: remote_csp_refused, saying which devtool to use', async () => {
    const notice = await refusedNotice('evaldev');
    expect(await notice.locator('[data-diagnosis]').textContent()).toBe('remote_csp_refused');
    expect(await notice.textContent()).toContain('eval devtool');
    await screenshot(page, 'foreign-remote-eval');
  });
});
