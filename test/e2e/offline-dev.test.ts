/**
 * `npm run dev` boots offline: webpack-dev-server serves the shell and the remotes, the MSW worker answers
 * every API call, and the Desk signs in, shows a home page without errors (the customer count of the seeds),
 * lists the mocks' seeded records, loads the crm remote's form and lists a record it stored next to them;
 * a reload lands on the stored record, signed in (the in-browser backend keeps its data in IndexedDB).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crmApp } from '../../backend/apps/crm/app';
import { stockApp } from '../../backend/apps/stock/app';
import { MemoryRecordStore } from '../../backend/data/memory-record-store';
import { createDocTypeRegistry } from '../../backend/doctypes/registry';
import { seedRecords } from '../../mocks/support/seed-records';
import { launchChromium, screenshot } from './support/browser';
import { type DevServer, startDevServer } from './support/dev-server';

/** The item names the browser worker seeds (the same deterministic seeds, into a store of their own). */
async function seededItemNames(): Promise<string[]> {
  const doctypes = createDocTypeRegistry([crmApp, stockApp]);
  const store = new MemoryRecordStore();
  seedRecords(store, doctypes);
  const page = await store.list(doctypes.get('stock.Item')!, {
    filters: [],
    orderBy: [],
    start: 0,
    pageLength: 100,
  });
  return page.data.map((r) => String(r.item_name));
}

let dev: DevServer | undefined;
let browser: Browser | undefined;
let base = '';

beforeAll(async () => {
  dev = await startDevServer();
  base = dev.deskUrl;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
});

describe('npm run dev (offline)', () => {
  it('boots with mocked APIs, lists seeded records, loads the crm remote and lists a stored record', async () => {
    const seededItems = await seededItemNames();
    expect(seededItems).toHaveLength(3);
    const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(base);
    await page.getByLabel('User', { exact: true }).fill('Administrator');
    await page.getByLabel('Password').fill('admin');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(
      page
        .getByRole('navigation', { name: 'Apps' })
        .getByRole('link', { name: 'Items', exact: true })
        .waitFor(),
    ).resolves.toBeUndefined();

    // The home page's widgets answer through the mock's own API app: the crm count RPC counts the seeds.
    await page.getByText(/\b3 customers\b/).waitFor();
    expect(await page.getByText('Could not count customers').count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);

    // A fresh offline Desk already has records to list: the worker's seeds, before anything is created.
    await page.goto(`${base}#/app/stock.Item`);
    const itemList = page.getByRole('region', { name: 'Item list' });
    for (const name of seededItems) await itemList.getByRole('cell', { name, exact: true }).waitFor();
    expect(await itemList.getByRole('row').count()).toBe(1 + seededItems.length);
    await itemList.getByText('1–3 of 3 items').waitFor();

    await page.goto(`${base}#/app/crm.Customer/new`);
    await page.getByRole('heading', { level: 2, name: 'Customer details' }).waitFor();

    await page.goto(`${base}#/app/stock.Item/new`);
    await page.getByLabel(/Item code/i).fill('OFF-1');
    await page.getByLabel(/Item name/i).fill('Offline widget');
    await page.getByLabel(/Quantity/i).fill('3');
    await page.getByLabel(/Price/i).fill('9.5');
    await page.getByRole('button', { name: 'Save' }).click();
    // Saving confirms, and the form stays on the stored record.
    await page.getByRole('status').getByText('Item “Offline widget” saved.').waitFor();
    await page.waitForURL((url) => !url.hash.endsWith('/new'));
    const recordUrl = page.url();
    // The header says the data is the mocks' sample data (the sample apps have some).
    expect(await page.locator('.desk-header__mode--dev').textContent()).toBe('offline · sample data');

    // A reload (what an edit's rebuild does) starts the in-browser backend from what it kept: the same
    // record, still signed in, with nothing asked again.
    await page.reload();
    await page.waitForFunction(() =>
      [...document.querySelectorAll('input')].some((input) => input.value === 'Offline widget'),
    );
    expect(page.url()).toBe(recordUrl);
    expect(await page.getByLabel('Password').count()).toBe(0);
    await screenshot(page, 'offline-record-after-reload');
    await page.goto(`${base}#/app/stock.Item`);
    await itemList.getByRole('cell', { name: 'Offline widget', exact: true }).waitFor();
    await itemList.getByText('1–4 of 4 items').waitFor();
    for (const name of seededItems) await itemList.getByRole('cell', { name, exact: true }).waitFor();
    await screenshot(page, 'offline-stock-item-list');
  });
});
