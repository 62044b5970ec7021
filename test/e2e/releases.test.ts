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
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from './support/browser';
import { type DeskTarget, startDeskTarget } from './support/desk-target';
import { crmRequests, gatewayRequests, type ReleaseWalk, startReleaseWalk } from './support/release-walk';

let target: DeskTarget;
let browser: Browser;
let walk: ReleaseWalk;

beforeAll(async () => {
  target = await startDeskTarget('monolith');
  walk = await startReleaseWalk(target);
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  walk?.dispose();
  await target?.stop();
  target?.dispose();
});

describe('releases of the crm remote in the Desk (monolith)', () => {
  it('keeps an open tab on its release through a promotion, offers the new one at the next navigation, and a rollback the same', async () => {
    const { crmFolder, publish, publishAndPromote, release, signIn } = walk;
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
    const discoveryAsked = gatewayRequests(page);
    await page.getByRole('button', { name: 'Save customer' }).click();
    await page.getByRole('status').getByText('Customer “Ada Lovelace” saved.').waitFor();
    // Saving opened the record's own screen: the next navigation, where the offer appears, brought by the
    // navigation's discovery query alone.
    await offer.getByText(/A new version of .+ is available/).waitFor();
    expect(discoveryAsked).toContain('POST /api/gateway/discovery/query');
    expect(discoveryAsked).not.toContain('GET /api/gateway/remotes');
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
