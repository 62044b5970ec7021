/**
 * Releases of the crm remote in Chromium against MACROSERVICE (`npm run start:macro`: a gateway, one process
 * per sample app, NATS): the same walk as in MONOLITH, through the gateway. Release 1 is published (its files
 * kept by the crm service) and promoted with `m release`; a tab opens the customer form on it; release 2 is
 * published and promoted; at its next navigation the tab offers "A new version of CRM is available", and
 * accepting loads release 2's files through the gateway. The Releases page lists both and rolls back with one
 * confirmed click; a fresh tab then gets release 1.
 * Screenshots: `releases-macro-*` in test/e2e/__screenshots__.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from './support/browser';
import { type DeskTarget, startDeskTarget } from './support/desk-target';
import { crmRequests, gatewayRequests, type ReleaseWalk, startReleaseWalk } from './support/release-walk';

let target: DeskTarget;
let browser: Browser;
let walk: ReleaseWalk;

beforeAll(async () => {
  target = await startDeskTarget('macroservice');
  walk = await startReleaseWalk(target);
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  walk?.dispose();
  await target?.stop();
  target?.dispose();
});

describe('releases of the crm remote in the Desk (macroservice)', () => {
  it('publishes to the gateway, offers the promoted release at the next navigation, and rolls back from the Releases page', async () => {
    const { crmFolder, publishAndPromote, release, signIn } = walk;
    const v1 = await publishAndPromote(crmFolder('one', '1.0.0', 'release one'));
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const requested = crmRequests(page);
    await signIn(page);
    await page.goto(`${target.deskUrl}#/app/crm.Customer/new`);
    await page.getByLabel('Customer name').fill('Grace Hopper');
    expect(new Set(requested)).toEqual(new Set([v1]));
    await screenshot(page, 'releases-macro-1-form-on-release-1');

    const v2 = await publishAndPromote(crmFolder('two', '1.1.0', 'release two'));
    const discoveryAsked = gatewayRequests(page);
    await page.getByRole('button', { name: 'Save customer' }).click();
    await page.getByRole('status').getByText('Customer “Grace Hopper” saved.').waitFor();
    const offer = page.getByRole('status', { name: 'New versions' });
    await offer.getByText(/A new version of .+ is available/).waitFor();
    // Brought by the navigation's discovery query alone, as in MONOLITH.
    expect(discoveryAsked).toContain('POST /api/gateway/discovery/query');
    expect(discoveryAsked).not.toContain('GET /api/gateway/remotes');
    // The saved record's own screen, still drawn by release 1's code.
    await page.getByLabel('Customer name').waitFor();
    expect(await page.getByLabel('Customer name').inputValue()).toBe('Grace Hopper');
    expect(new Set(requested)).toEqual(new Set([v1]));
    await screenshot(page, 'releases-macro-2-offer-after-promotion');

    requested.length = 0;
    await Promise.all([
      page.waitForEvent('load'),
      offer.getByRole('button', { name: 'Load the new version' }).click(),
    ]);
    await page.goto(`${target.deskUrl}#/app/crm.Customer/new`);
    await page.getByLabel('Customer name').waitFor();
    expect(requested).toContain(v2);
    expect(requested).not.toContain(v1);

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
    await screenshot(page, 'releases-macro-3-page');

    await crm.getByRole('button', { name: `Roll back to ${v1}` }).click();
    await page
      .getByRole('alertdialog', { name: 'Roll back CRM?' })
      .getByRole('button', { name: 'Roll back', exact: true })
      .click();
    await history.getByText(`Administrator rolled back to ${v1} (from ${v2}).`).waitFor();
    expect(await crm.getByText('Live').locator('xpath=following-sibling::dd[1]').textContent()).toBe(v1);
    expect(await release(['list', 'crm'])).toMatch(new RegExp(`live\\s+${v1.replace('+', '\\+')}`));
    await screenshot(page, 'releases-macro-4-page-after-rollback');

    const fresh = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const freshRequests = crmRequests(fresh);
    await signIn(fresh);
    await fresh.goto(`${target.deskUrl}#/app/crm.Customer/new`);
    await fresh.getByLabel('Customer name').waitFor();
    expect(new Set(freshRequests)).toEqual(new Set([v1]));
    await fresh.close();
    await page.close();
  }, 300_000);
});
