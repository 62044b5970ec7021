/**
 * Releases of a remote in Chromium against `m serve` (MONOLITH): release 1 of the crm remote is published
 * and promoted with `m release`; a tab opens the customer form on it and starts typing; release 2 is
 * published and promoted; the tab saves the form with the typed values (its remote keeps loading release
 * 1's files), then, at its next navigation, offers "A new version of CRM is available"; accepting loads
 * release 2. The Releases page lists both releases and who promoted them; its one-click rollback (confirmed)
 * brings release 1 back (a release built against another contract is refused with its difference, and
 * cancelled) to a fresh tab, and it is offered to the open one as "A different version of CRM is
 * now live" (release 1 is older, not new); its developer details show the release it runs (2), the live one
 * (1) and its channel.
 * Screenshots: `releases-*` in test/e2e/__screenshots__.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from './support/browser';
import { type DeskTarget, E2E_ADMIN_PASSWORD, startDeskTarget } from './support/desk-target';

const ROOT = join(import.meta.dirname, '..', '..');
const temp = mkdtempSync(join(tmpdir(), 'desk-e2e-releases-'));
const children = new Set<ChildProcess>();

let target: DeskTarget;
let browser: Browser;
let apiKey = '';

/** Runs `m release <args>` against the target; resolves to its output, failing on a non-zero exit. */
function release(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'm.js'), 'release', ...args], {
    cwd: ROOT,
    env: { ...process.env, PLATFORM_URL: target.origin, PLATFORM_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`m release ${args.join(' ')}: ${out}`)),
    ),
  );
}

/**
 * An app folder publishing the crm remote as built in this checkout, at `version`; `mark` is appended to its
 * remoteEntry.js so each release is a different build (its stale precompressed copies are left out). With
 * `extraMethod`, the app it is built against also has that RPC method, which the running crm lacks: the
 * contract gate refuses to make it live unless forced.
 */
function crmFolder(name: string, version: string, mark: string, extraMethod?: string): string {
  const dir = join(temp, name);
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, 'backend', 'apps', 'crm', 'static', 'mfe'), join(dir, 'static', 'mfe'), {
    recursive: true,
  });
  const entry = join(dir, 'static', 'mfe', 'remoteEntry.js');
  writeFileSync(entry, `${readFileSync(entry, 'utf8')}\n/* ${mark} */\n`);
  rmSync(`${entry}.br`, { force: true });
  rmSync(`${entry}.gz`, { force: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `crm-${name}`, version, type: 'module' }));
  const crm = JSON.stringify(join(ROOT, 'backend', 'apps', 'crm', 'app.ts'));
  writeFileSync(
    join(dir, 'app.ts'),
    extraMethod
      ? `import { crmApp } from ${crm};\nexport default { ...crmApp, methods: { ...crmApp.methods, ${JSON.stringify(extraMethod)}: crmApp.methods['crm.api.ping'] } };\n`
      : `export { crmApp as default } from ${crm};\n`,
  );
  return dir;
}

/** Publishes an app folder's build; resolves to the release version. */
async function publish(folder: string): Promise<string> {
  const out = await release(['publish', '--dir', folder]);
  const version = /published crm (\S+) /.exec(out)?.[1];
  if (!version) throw new Error(`no version in: ${out}`);
  return version;
}

async function publishAndPromote(folder: string): Promise<string> {
  const version = await publish(folder);
  await release(['promote', 'crm', version]);
  return version;
}

async function signIn(page: Page): Promise<void> {
  await page.goto(target.deskUrl);
  await page.getByLabel(/User/i).first().fill('Administrator');
  await page.getByLabel('Password').fill(E2E_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .getByRole('navigation', { name: 'Apps' })
    .getByRole('link', { name: 'Customers', exact: true })
    .waitFor();
}

/** The crm remote files a page requests, as the release segment of their URL (`static` for static/mfe). */
function crmRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    const match = /^\/desk\/assets\/crm\/(?:([^/]+\+[0-9a-f]{12})\/)?/.exec(path);
    if (match) seen.push(match[1] ?? 'static');
  });
  return seen;
}

beforeAll(async () => {
  target = await startDeskTarget('monolith');
  const login = await fetch(`${target.origin}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: target.origin },
    body: JSON.stringify({ usr: 'Administrator', pwd: E2E_ADMIN_PASSWORD }),
  });
  const { csrf_token } = (await login.json()) as { csrf_token: string };
  const key = await fetch(`${target.origin}/api/method/platform.auth.generate_api_key`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: login.headers.get('set-cookie')!.split(';')[0]!,
      'x-csrf-token': csrf_token,
      origin: target.origin,
    },
    body: '{}',
  });
  const { message } = (await key.json()) as { message: { api_key: string; api_secret: string } };
  apiKey = `${message.api_key}:${message.api_secret}`;
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await target?.stop();
  target?.dispose();
  rmSync(temp, { recursive: true, force: true });
});

describe('releases of the crm remote in the Desk (monolith)', () => {
  it('keeps an open tab on its release through a promotion, offers the new one at the next navigation, and a rollback the same', async () => {
    const v1 = await publishAndPromote(crmFolder('one', '1.0.0', 'release one'));
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const requested = crmRequests(page);
    await signIn(page);
    await page.goto(`${target.deskUrl}#/app/crm.Customer/new`);
    await page.getByLabel('Customer name').fill('Ada Lovelace');
    expect(new Set(requested)).toEqual(new Set([v1]));
    await screenshot(page, 'releases-1-form-on-release-1');

    const v2 = await publishAndPromote(crmFolder('two', '1.1.0', 'release two'));
    expect(v2).not.toBe(v1);
    // The open form still holds what was typed, nothing interrupts it, and it saves with release 1's code.
    expect(await page.getByLabel('Customer name').inputValue()).toBe('Ada Lovelace');
    const offer = page.getByRole('status', { name: 'New versions' });
    expect(await offer.count()).toBe(0);
    await page.getByRole('button', { name: 'Save customer' }).click();
    await page.getByRole('status').getByText('Customer “Ada Lovelace” saved.').waitFor();
    // Saving opened the record's own screen: the next navigation, where the offer appears.
    await offer.getByText(/A new version of .+ is available/).waitFor();
    expect(await page.getByLabel('Customer name').inputValue()).toBe('Ada Lovelace');

    // Another screen of the app: no error, still release 1's files, the offer still there.
    await page.goto(`${target.deskUrl}#/app/crm.Lead`);
    await page.getByRole('heading', { level: 1, name: /Lead/ }).waitFor();
    await offer.getByText(/A new version of .+ is available/).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(new Set(requested)).toEqual(new Set([v1]));
    await screenshot(page, 'releases-2-offer-after-promotion');

    // Accepting loads release 2.
    requested.length = 0;
    await Promise.all([
      page.waitForEvent('load'),
      offer.getByRole('button', { name: 'Load the new version' }).click(),
    ]);
    await page.goto(`${target.deskUrl}#/app/crm.Customer/new`);
    await page.getByLabel('Customer name').waitFor();
    expect(requested).toContain(v2);
    expect(requested).not.toContain(v1);
    expect(await page.getByRole('status', { name: 'New versions' }).count()).toBe(0);
    await screenshot(page, 'releases-3-release-2-loaded');

    // The Releases page lists both releases and the promotion; one click and its confirmation roll back.
    await page
      .getByRole('navigation', { name: 'Apps' })
      .getByRole('link', { name: 'Releases', exact: true })
      .click();
    const crm = page.getByRole('region', { name: 'CRM' });
    const kept = crm.getByRole('table', { name: 'Releases of CRM' });
    await kept.getByRole('rowheader', { name: v2 }).waitFor();
    await kept.getByRole('rowheader', { name: v1 }).waitFor();
    const history = crm.getByRole('list', { name: 'History of CRM' });
    await history.getByText(`Administrator promoted ${v2} (live was ${v1}).`).waitFor();
    expect(await crm.getByText('Live').locator('xpath=following-sibling::dd[1]').textContent()).toBe(v2);
    await screenshot(page, 'releases-5-page');

    await crm.getByRole('button', { name: `Roll back to ${v1}` }).click();
    await page
      .getByRole('alertdialog', { name: 'Roll back CRM?' })
      .getByRole('button', { name: 'Roll back', exact: true })
      .click();
    await history.getByText(`Administrator rolled back to ${v1} (from ${v2}).`).waitFor();
    expect(await crm.getByText('Live').locator('xpath=following-sibling::dd[1]').textContent()).toBe(v1);
    expect(await release(['list', 'crm'])).toMatch(new RegExp(`live\\s+${v1.replace('+', '\\+')}`));
    await screenshot(page, 'releases-6-page-after-rollback');

    // A release built against a contract the running crm does not offer: Promote shows the difference and
    // asks again ("Promote anyway"); cancelled, nothing moves.
    const v3 = await publish(crmFolder('three', '1.2.0', 'release three', 'crm.api.loyalty_tier'));
    const sidebar = page.getByRole('navigation', { name: 'Apps' });
    await sidebar.getByRole('link', { name: 'Home', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    await sidebar.getByRole('link', { name: 'Releases', exact: true }).click();
    await kept.getByRole('rowheader', { name: v3 }).waitFor();
    await kept.getByRole('button', { name: `Promote ${v3}` }).click();
    await page
      .getByRole('alertdialog', { name: `Promote ${v3}?` })
      .getByRole('button', { name: 'Promote', exact: true })
      .click();
    const refused = page.getByRole('alertdialog', { name: 'Promote anyway?' });
    await refused.getByText('The service no longer has this RPC method.').waitFor();
    expect(await refused.getByRole('listitem').textContent()).toBe(
      'crm.api.loyalty_tier: The service no longer has this RPC method.',
    );
    await screenshot(page, 'releases-8-promotion-refused');
    await refused.getByRole('button', { name: 'Cancel' }).click();
    await refused.waitFor({ state: 'detached' });
    expect(await crm.getByText('Live').locator('xpath=following-sibling::dd[1]').textContent()).toBe(v1);

    // A fresh tab gets release 1, the open one is offered it at its next navigation.
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const freshRequests = crmRequests(fresh);
    await signIn(fresh);
    await fresh.goto(`${target.deskUrl}#/app/crm.Customer/new`);
    await fresh.getByLabel('Customer name').waitFor();
    expect(new Set(freshRequests)).toEqual(new Set([v1]));
    await fresh.close();

    await page.goto(`${target.deskUrl}#/app/crm.Lead`);
    const rollbackOffer = page.getByRole('status', { name: 'New versions' });
    await rollbackOffer.getByText(/A different version of .+ is now live/).waitFor();
    expect(await rollbackOffer.getByText(/A new version/).count()).toBe(0);
    await rollbackOffer.getByRole('button', { name: 'Load the new version' }).waitFor();
    await screenshot(page, 'releases-4-offer-after-rollback');

    // Developer details on the home page: this tab still runs release 2, release 1 is live, the channel live.
    await page.goto(`${target.deskUrl}#/`);
    await page.getByRole('button', { name: 'Developer details' }).click();
    await page.locator('summary', { hasText: 'Developer details' }).click();
    const crmRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'crm' }) });
    await crmRow.locator('dl', { hasText: `Live${v1}` }).waitFor();
    expect(await crmRow.locator('dl').textContent()).toBe(`This tab${v2}Live${v1}Your channellive`);
    await screenshot(page, 'releases-7-developer-details');
    await page.close();
  }, 300_000);
});
