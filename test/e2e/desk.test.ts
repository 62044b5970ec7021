/**
 * The Desk in Chromium against a running platform, once per mode (`m serve` for MONOLITH, `npm run
 * start:macro` for MACROSERVICE): sign in, create a customer through the crm remote's own form with its
 * personal data encrypted on the wire, create a stock.Item as plain JSON, see both in their lists and in the
 * database, and keep working when the crm remote's assets answer 500; a System Manager sees who was shown the
 * customer's personal data and the Audit page, and finds the customer by the email typed right after Ctrl+K
 * (into the search even while its code loads, not into the form). Screenshots of the main screens go to
 * test/e2e/__screenshots__.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, savedRecordOpened, screenshot } from './support/browser';
import { type DeskMode, type DeskTarget, E2E_ADMIN_PASSWORD, startDeskTarget } from './support/desk-target';

/** A compact JWE: five base64url segments (the second, the encrypted key, is never empty for RSA-OAEP). */
const COMPACT_JWE = /^[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/;

async function signIn(page: Page, deskUrl: string): Promise<void> {
  await page.goto(deskUrl);
  await page.getByLabel('User', { exact: true }).fill('Administrator');
  await page.getByLabel('Password').fill(E2E_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await appLink(page, 'Items').waitFor();
}

function appLink(page: Page, label: string) {
  return page.getByRole('navigation', { name: 'Apps' }).getByRole('link', { name: label, exact: true });
}

/** The stored `data` of the records named `name` in `app`'s database (the platform must be stopped). */
async function storedRows(target: DeskTarget, app: string, docType: string, name: string) {
  const db = await target.openAppDatabase(app);
  try {
    const { rows } = await db.query<{ data: Record<string, unknown> }>(
      'SELECT data FROM records WHERE doctype = $1 AND name = $2',
      [docType, name],
    );
    return rows.map((row) => row.data);
  } finally {
    await db.close();
  }
}

function isCreate(docType: string) {
  return (request: Request) =>
    request.method() === 'POST' && new URL(request.url()).pathname === `/api/resource/${docType}`;
}

describe.each<DeskMode>(['monolith', 'macroservice'])('the Desk against %s', (mode) => {
  let target: DeskTarget;
  let browser: Browser;
  let page: Page;
  const suffix = `${mode}-${Date.now().toString(36)}`;
  const customer = {
    name: `Ada Lovelace ${suffix}`,
    email: `ada.${suffix}@example.com`,
    phone: '+44 20 7946 0958',
  };
  const item = { code: `E2E-${suffix}`.toUpperCase(), name: `Brass widget ${suffix}` };
  let customerName = '';
  let itemName = '';

  beforeAll(async () => {
    target = await startDeskTarget(mode);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    await target?.stop();
    target?.dispose();
  });

  it("counts a busy server's Retry-After down on the sign-in screen, then signs in by itself", async () => {
    // Its own context: the page the other tests share signs in below.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const busy = await context.newPage();
    let signIns = 0;
    // The first sign-in is answered as a server whose password checks are all taken answers it.
    await busy.route('**/api/method/login', async (route) => {
      if (++signIns > 1) return route.continue();
      await route.fulfill({
        status: 503,
        headers: { 'retry-after': '3' },
        contentType: 'application/json',
        body: JSON.stringify({
          error: { code: 'login_busy', message: 'Too many sign-ins at once; try again.' },
        }),
      });
    });
    await busy.goto(target.deskUrl);
    // The sign-in screen suggests no user name: the user types it.
    const user = busy.getByLabel('User', { exact: true });
    expect(await user.inputValue()).toBe('');
    await screenshot(busy, `${mode}-sign-in`);
    await user.fill('Administrator');
    await busy.getByLabel('Password').fill(E2E_ADMIN_PASSWORD);
    await busy.getByRole('button', { name: 'Sign in' }).click();
    await busy.getByRole('status').filter({ hasText: 'Many people are signing in right now' }).waitFor();
    await screenshot(busy, `${mode}-sign-in-busy`);
    await appLink(busy, 'Items').waitFor();
    expect(signIns).toBe(2);
    await context.close();
  });

  it('signs in and lists both sample apps in the sidebar', async () => {
    await signIn(page, target.deskUrl);
    await appLink(page, 'Customers').waitFor();
    await appLink(page, 'Warehouses').waitFor();
    await appLink(page, 'Tickets').waitFor();
    await screenshot(page, `${mode}-home`);
  });

  it("creates a crm.Customer through the crm remote's form, its personal data sent as a JWE", async () => {
    await page.goto(`${target.deskUrl}#/app/crm.Customer/new`);
    await page.getByRole('heading', { level: 2, name: 'Customer details' }).waitFor();
    await page.getByLabel('Customer name').fill(customer.name);
    await page.getByLabel('Email').fill(customer.email);
    await page.getByLabel('Phone').fill(customer.phone);
    await screenshot(page, `${mode}-customer-form`);

    const sent = page.waitForRequest(isCreate('crm.Customer'));
    await page.getByRole('button', { name: 'Save customer' }).click();
    const request = await sent;
    const response = await request.response();

    expect(request.headers()['content-type']).toBe('application/jose');
    const body = request.postData() ?? '';
    expect(body).toMatch(COMPACT_JWE);
    expect(body).not.toContain(customer.email);
    expect(body).not.toContain(customer.phone);
    expect(response?.status()).toBe(201);
    const created = (await response!.json()) as { data: { name: string; email: string } };
    expect(created.data.email).toBe(customer.email);
    customerName = created.data.name;
    await savedRecordOpened(page, 'crm.Customer');

    await page.goto(`${target.deskUrl}#/app/crm.Customer`);
    await page.getByRole('cell', { name: customer.name, exact: true }).waitFor();
    await screenshot(page, `${mode}-customer-list`);
  });

  it('creates a stock.Item as plain JSON with the generic form', async () => {
    await page.goto(`${target.deskUrl}#/app/stock.Item/new`);
    await page.getByLabel(/Item code/i).fill(item.code);
    await page.getByLabel(/Item name/i).fill(item.name);
    await page.getByLabel(/Quantity/i).fill('7');
    await page.getByLabel(/Price/i).fill('12.5');

    const sent = page.waitForRequest(isCreate('stock.Item'));
    await page.getByRole('button', { name: 'Save' }).click();
    const request = await sent;
    const response = await request.response();

    expect(request.headers()['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(request.postData() ?? '{}')).toMatchObject({
      item_code: item.code,
      item_name: item.name,
    });
    expect(response?.status()).toBe(201);
    itemName = ((await response!.json()) as { data: { name: string } }).data.name;
    await savedRecordOpened(page, 'stock.Item');

    await page.goto(`${target.deskUrl}#/app/stock.Item`);
    await page.getByRole('cell', { name: item.name, exact: true }).waitFor();
    await screenshot(page, `${mode}-item-list`);
  });

  it('contains a crm remote whose assets answer 500; the rest of the Desk keeps working', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const broken = await context.newPage();
      let refused = 0;
      await broken.route(/\/desk\/assets\/crm\//, (route) => {
        refused++;
        return route.fulfill({ status: 500, contentType: 'text/plain', body: 'crm remote stopped' });
      });
      await signIn(broken, target.deskUrl);

      await broken.goto(`${target.deskUrl}#/app/crm.Customer/new`);
      const notice = broken.getByRole('alert').filter({ hasText: 'Part of this page could not be loaded' });
      await notice.waitFor();
      expect(refused).toBeGreaterThan(0);
      // The Desk's own form stands in for the crm remote's.
      await broken.getByRole('button', { name: 'Save' }).waitFor();
      await screenshot(broken, `${mode}-crm-remote-down`);

      await appLink(broken, 'Items').click();
      await broken.getByRole('cell', { name: item.name, exact: true }).waitFor();
      expect(await broken.getByRole('alert').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("shows System Managers who has seen the personal data (in MACROSERVICE crm's log, through the gateway)", async () => {
    expect(customerName).not.toBe('');
    const audit: string[] = [];
    const onRequest = (request: Request) => {
      if (new URL(request.url()).pathname.startsWith('/api/audit')) audit.push(request.url());
    };
    page.on('request', onRequest);
    try {
      await page.goto(`${target.deskUrl}#/app/crm.Customer/${encodeURIComponent(customerName)}`);
      await page.getByRole('heading', { level: 1, name: customer.name }).waitFor();
      // The form's own read revealed the email and phone to Administrator.
      const seenBy = page.getByRole('region', { name: 'Personal data seen by' });
      // Same screens in both modes; the MONOLITH ones keep their names.
      const shot = (name: string) => (mode === 'monolith' ? name : `${mode}-${name}`);
      await seenBy
        .getByRole('listitem')
        .filter({ hasText: 'Administrator saw Email, Phone' })
        .first()
        .waitFor();
      // The notices of the earlier saves would cover the section in the screenshot: all dismissed at once
      // (one may close on its own meanwhile), then gone.
      await page.evaluate(() => {
        for (const button of document.querySelectorAll<HTMLButtonElement>('button[aria-label="Dismiss"]'))
          button.click();
      });
      await page.getByRole('button', { name: 'Dismiss' }).first().waitFor({ state: 'detached' });
      await seenBy.scrollIntoViewIfNeeded();
      await screenshot(page, shot('audit-record-seen-by'));

      await appLink(page, 'Audit').click();
      await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
      await page.getByRole('status').filter({ hasText: 'The audit log is intact' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: customerName }).first();
      await row.waitFor();
      expect(await row.textContent()).toContain('Administrator');
      expect(audit.length).toBeGreaterThan(0);
      await screenshot(page, shot('audit-page'));

      // The log saved as a file: every reveal with its hashes, named by its service through a gateway.
      const downloading = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
      const [header, ...lines] = readFileSync((await download.path())!, 'utf8')
        .trim()
        .split('\r\n');
      expect(header).toBe(
        `${mode === 'monolith' ? '' : 'service,'}seq,at,user,via,doctype,record,fields,route,client_address,prev_hash,hash`,
      );
      expect(
        lines.some((line) =>
          line.includes(`,Administrator,session,crm.Customer,${customerName},email phone,get,`),
        ),
      ).toBe(true);

      // Narrowed to today, in the browser's own calendar: the reveals of the walk are all today's.
      const filters = page.getByRole('form', { name: 'Filter the audit log' });
      const today = await page.evaluate(() => {
        const now = new Date();
        return [now.getFullYear(), now.getMonth() + 1, now.getDate()]
          .map((n) => String(n).padStart(2, '0'))
          .join('-');
      });
      await filters.getByLabel('From', { exact: true }).fill(today);
      await filters.getByLabel('To', { exact: true }).fill(today);
      await filters.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(`**#/audit?from=${today}&to=${today}`);
      await page.getByRole('row').filter({ hasText: customerName }).first().waitFor();
      await screenshot(page, shot('audit-page-today'));
      await filters.getByRole('button', { name: 'Clear filters' }).click();
      await page.waitForURL('**#/audit');

      // Filtered by a DocType picked by its label and a user who saw nothing: the empty log says what it
      // was filtered by.
      await filters.getByLabel('DocType').selectOption({ label: 'Customer' });
      await filters.getByLabel('User').fill('nobody');
      await filters.getByRole('button', { name: 'Filter' }).click();
      await page
        .getByText('No personal data matching DocType “Customer” and user “nobody” was shown.')
        .waitFor();
      await screenshot(page, shot('audit-empty'));
    } finally {
      page.off('request', onRequest);
    }
  });

  it('takes what is typed right after Ctrl+K into the search, even while its code loads, not into the form', async () => {
    expect(customerName).not.toBe('');
    // A page of its own: the palette's code has not loaded yet, and is held back as on a slow network.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const fresh = await context.newPage();
      await signIn(fresh, target.deskUrl);
      await fresh.route(/\/search-palette\.[0-9a-f]+\.js$/, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 800));
        await route.continue();
      });
      await fresh.goto(`${target.deskUrl}#/app/crm.Customer/${encodeURIComponent(customerName)}`);
      const name = fresh.getByLabel('Customer name');
      await name.click();
      await fresh.keyboard.press('Control+k');
      // A quick typist: most of the email is typed before the palette's code arrives.
      await fresh.keyboard.type(customer.email, { delay: 20 });
      const search = fresh.getByRole('combobox', { name: 'Search records, or go to a list' });
      await search.waitFor();
      expect(await search.inputValue()).toBe(customer.email);
      expect(await name.inputValue()).toBe(customer.name);
      // A whole email finds its record for a user who may see personal data (docs/desk.md).
      const hit = fresh.getByRole('option', { name: customer.name });
      await hit.waitFor();
      await screenshot(fresh, mode === 'monolith' ? 'search-by-email' : `${mode}-search-by-email`);
      // Escape gives focus back to the field that had it, unchanged.
      await fresh.keyboard.press('Escape');
      await search.waitFor({ state: 'detached' });
      expect(await fresh.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe(
        'customer_name',
      );
      expect(await name.inputValue()).toBe(customer.name);
      await expect(fresh.getByText('Unsaved changes').count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });

  it('stored both records in the database, the personal data encrypted at rest', async () => {
    expect(customerName).not.toBe('');
    expect(itemName).not.toBe('');
    await browser.close();
    await target.stop();

    const customers = await storedRows(target, 'crm', 'crm.Customer', customerName);
    expect(customers).toHaveLength(1);
    expect(customers[0]).toMatchObject({ customer_name: customer.name });
    // docs/security.md#personal-data-at-rest: ciphertext, never the value the form sent.
    expect(String(customers[0]!.email)).toMatch(/^enc1\./);
    expect(String(customers[0]!.phone)).toMatch(/^enc1\./);
    expect(JSON.stringify(customers[0])).not.toContain(customer.email);
    expect(JSON.stringify(customers[0])).not.toContain(customer.phone);
    const items = await storedRows(target, 'stock', 'stock.Item', itemName);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      item_code: item.code,
      item_name: item.name,
      quantity: 7,
      price: 12.5,
    });
  });
});
