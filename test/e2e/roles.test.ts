/**
 * Roles in the Desk, in Chromium against `m serve` (MONOLITH): a System Manager creates a `Stock User` on the
 * Users page; signed in as that user, the Desk shows neither the CRM section nor a Delete button on Items,
 * and the server refuses what the Desk hides. Screenshots: `roles-users-page`, `roles-users-disabled`, `roles-stock-user-desk`,
 * `roles-stock-user-item` in test/e2e/__screenshots__.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from './support/browser';
import { type DeskTarget, E2E_ADMIN_PASSWORD, startDeskTarget } from './support/desk-target';

const STOCK_USER = 'stock.clerk';
const STOCK_PASSWORD = 'stock-clerk-password';

function nav(page: Page) {
  return page.getByRole('navigation', { name: 'Apps' });
}

async function signIn(page: Page, deskUrl: string, user: string, password: string): Promise<void> {
  await page.goto(deskUrl);
  const name = page.getByLabel(/User/i).first();
  await name.fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await nav(page).getByRole('link', { name: 'Items', exact: true }).waitFor();
}

describe('roles in the Desk (monolith)', () => {
  let target: DeskTarget;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    target = await startDeskTarget('monolith');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await target?.stop();
    target?.dispose();
  });

  it('a System Manager creates a Stock User on the Users page, disables and enables them again', async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, target.deskUrl, 'Administrator', E2E_ADMIN_PASSWORD);
    await nav(page).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByLabel('User name').fill(STOCK_USER);
    await page.getByLabel(/^Password/).fill(STOCK_PASSWORD);
    await page.getByRole('checkbox', { name: 'Stock User' }).check();
    // The roles offered are the server's; another is typed in, and taken back before the user is created.
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByRole('checkbox', { name: 'Metrics Reader' }).waitFor();
    await form.getByLabel('Another role').fill('Night Porter');
    await form.getByLabel('Another role').press('Enter');
    const typed = form.getByRole('checkbox', { name: 'Night Porter' });
    expect(await typed.isChecked()).toBe(true);
    await form.scrollIntoViewIfNeeded();
    await screenshot(page, 'roles-users-new-form');
    await typed.uncheck();
    await page.getByRole('button', { name: 'Create user' }).click();
    const row = page.getByRole('row', { name: new RegExp(STOCK_USER.replace('.', '\\.')) });
    await row.waitFor();
    expect(await row.textContent()).toContain('Stock User');
    await screenshot(page, 'roles-users-page');
    // Disabled, then enabled again: the user can sign in in the next test.
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    expect(await row.textContent()).toContain('Disabled');
    await screenshot(page, 'roles-users-disabled');
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByRole('button', { name: 'Disable' }).waitFor();
    // Editing a user's roles offers the same choices, in the row.
    await row.getByRole('button', { name: 'Edit roles' }).click();
    await row.getByRole('checkbox', { name: 'Metrics Reader' }).waitFor();
    expect(await row.getByRole('checkbox', { name: 'Stock User' }).isChecked()).toBe(true);
    await screenshot(page, 'roles-users-edit-roles');
    await row.getByRole('button', { name: 'Cancel' }).click();
    await page.close();
  });

  it('a Stock User sees neither the CRM section nor a Delete button on Items', async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, target.deskUrl, STOCK_USER, STOCK_PASSWORD);
    await nav(page).getByRole('link', { name: 'Warehouses', exact: true }).waitFor();
    expect(await nav(page).getByRole('link', { name: 'Customers', exact: true }).count()).toBe(0);
    expect(await nav(page).getByRole('heading', { name: /crm/i }).count()).toBe(0);
    expect(await nav(page).getByRole('link', { name: 'Users' }).count()).toBe(0);
    // Home lists only what the user may read: no crm cards.
    await page
      .getByRole('main')
      .getByRole('link', { name: /^Items/ })
      .waitFor();
    expect(
      await page
        .getByRole('main')
        .getByRole('link', { name: /^Customers/ })
        .count(),
    ).toBe(0);
    await screenshot(page, 'roles-stock-user-desk');

    // Creates an item (allowed), then opens it: no Delete button.
    await page.goto(`${target.deskUrl}#/app/stock.Item/new`);
    await page.getByLabel(/Item code/i).fill('ROLE-E2E-1');
    await page.getByLabel(/Item name/i).fill('Role test item');
    const created = page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/resource/stock.Item',
    );
    await page.getByRole('button', { name: 'Save' }).click();
    const response = await created;
    expect(response.status()).toBe(201);
    const { data } = (await response.json()) as { data: { name: string } };
    await page.goto(`${target.deskUrl}#/app/stock.Item/${encodeURIComponent(data.name)}`);
    await page.getByLabel(/Item name/i).waitFor();
    expect(await page.getByRole('button', { name: /Delete/i }).count()).toBe(0);
    await screenshot(page, 'roles-stock-user-item');

    // The server refuses what the Desk hides.
    const refused = await page.evaluate(async () => {
      const res = await fetch('/api/resource/crm.Customer', { credentials: 'include' });
      return { status: res.status, body: await res.json() };
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
  });
});
