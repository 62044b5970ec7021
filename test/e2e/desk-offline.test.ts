/**
 * The Desk's links and global search offline (`npm run dev`, the mocks running the platform's own routes):
 * the seeded tickets show their customers' titles, Ctrl+K finds a seeded customer, and a new ticket links a
 * customer through the combobox.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crmApp } from '../../backend/apps/crm/app';
import { stockApp } from '../../backend/apps/stock/app';
import { supportApp } from '../../backend/apps/support/app';
import { MemoryRecordStore } from '../../backend/data/memory-record-store';
import { createDocTypeRegistry } from '../../backend/doctypes/registry';
import { seedRecords } from '../../mocks/support/seed-records';
import { launchChromium, screenshot } from './support/browser';
import { type DevServer, startDevServer } from './support/dev-server';

/** The seeded customers (the same deterministic seeds the browser worker uses), by id. */
async function seededCustomers(): Promise<Array<{ name: string; title: string }>> {
  const doctypes = createDocTypeRegistry([crmApp, stockApp, supportApp]);
  const store = new MemoryRecordStore();
  seedRecords(store, doctypes);
  const page = await store.list(doctypes.get('crm.Customer')!, {
    filters: [],
    orderBy: [{ field: 'name', direction: 'asc' }],
    start: 0,
    pageLength: 10,
  });
  return page.data.map((r) => ({ name: r.name, title: String(r.customer_name) }));
}

let dev: DevServer | undefined;
let browser: Browser | undefined;
let base = '';
let customers: Array<{ name: string; title: string }> = [];

beforeAll(async () => {
  customers = await seededCustomers();
  dev = await startDevServer();
  base = dev.deskUrl;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(base);
  await page.getByLabel('User', { exact: true }).fill('Administrator');
  await page.getByLabel('Password').fill('admin');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .getByRole('navigation', { name: 'Apps' })
    .getByRole('link', { name: 'Tickets', exact: true })
    .waitFor();
}

describe('npm run dev (offline): links and search', () => {
  it('lists seeded tickets with their customers, finds a customer with Ctrl+K, and links one in a new ticket', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page);

    await page.goto(`${base}#/app/support.Ticket`);
    const list = page.getByRole('region', { name: 'Ticket list' });
    const first = customers[0]!;
    const link = list.getByRole('link', { name: first.title });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`#/app/crm.Customer/${first.name}`);
    await screenshot(page, 'offline-ticket-list');

    await page.keyboard.press('Control+k');
    const input = page.getByRole('combobox', { name: /Search records/ });
    await input.fill(first.title.slice(0, 5));
    const option = page.getByRole('option', {
      name: new RegExp(first.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    });
    await option.waitFor();
    await screenshot(page, 'offline-palette');
    await input.press('Escape');

    await page.goto(`${base}#/app/support.Ticket/new`);
    await page.getByLabel(/^Subject/).fill('Offline ticket');
    const combobox = page.getByRole('combobox', { name: /^Customer/ });
    const second = customers[1]!;
    await combobox.fill(second.title.slice(0, 5));
    const pick = page.getByRole('option', {
      name: new RegExp(second.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    });
    await pick.waitFor();
    await pick.click();
    const sent = page.waitForRequest(
      (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/resource/support.Ticket',
    );
    await page.getByRole('button', { name: 'Save' }).click();
    expect(JSON.parse((await sent).postData() ?? '{}')).toMatchObject({ customer: second.name });
    await page.getByRole('status').getByText('Ticket “Offline ticket” saved.').waitFor();
    await screenshot(page, 'offline-ticket-saved');
  });
});
