/**
 * The Desk as a restricted user, in Chromium, once per mode: against `m serve` (MONOLITH) and against the
 * gateway with one service per app (MACROSERVICE), where every list, record, history, attachment and
 * permission check of the walk crosses the gateway to the owning service. An Administrator creates a
 * Support Agent (reads customers without their personal data, works tickets, nothing of leads or stock) and
 * a customer; signed in as the agent, a walk over Home, the Ctrl+K palette, the Customers list, a customer,
 * the Users page and a new ticket finds no action the agent may not take and no error text, and global
 * search finds the customer. Then a changed form asks before it is left, Ctrl+S saves, and a Link whose
 * text names no record blocks Save; the ticket's timeline lists each change with its author and takes a
 * comment; two tabs saving one ticket end in the conflict screen, not in a silent overwrite; a file attached
 * to the ticket downloads under its name with its bytes, and one too large is refused with the limit said.
 * Screenshots: `desk-rights-*` (MONOLITH) and `desk-rights-macroservice-*` in test/e2e/__screenshots__; axe-core finds no accessibility violation on any
 * of them. Last, the Customers list exports as CSV, and the Desk follows a dark system setting unless the
 * header's theme choice says otherwise (where axe-core finds none either). A Sales User, who may change
 * customers but not see their personal data, gets crm's own form with the email masked and read-only.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './support/axe';
import { launchChromium, screenshot } from './support/browser';
import { type DeskMode, type DeskTarget, E2E_ADMIN_PASSWORD, startDeskTarget } from './support/desk-target';

const AGENT = 'sam.agent';
const AGENT_PASSWORD = 'sam-agent-password';
const CUSTOMER = 'Grace Hopper';
const SALES = 'sally.sales';
const SALES_PASSWORD = 'sally-sales-password';

/** Words of a failure or a refusal: none may show on a screen the agent is offered. */
const ERROR_TEXT =
  /You may not|did not answer|went wrong|could not|Could not|not available|forbidden|did not|error/;

function nav(page: Page) {
  return page.getByRole('navigation', { name: 'Apps' });
}

async function signIn(page: Page, deskUrl: string, user: string, password: string): Promise<void> {
  await page.goto(deskUrl);
  await page.getByLabel(/User/i).first().fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await nav(page).getByRole('link', { name: 'Tickets', exact: true }).waitFor();
}

/** The main region's text and alerts hold no failure or refusal. */
async function expectNoErrorText(page: Page): Promise<void> {
  const main = page.getByRole('main');
  expect(await main.textContent()).not.toMatch(ERROR_TEXT);
  expect(await page.getByRole('alert').count()).toBe(0);
}

describe.each<DeskMode>(['monolith', 'macroservice'])('the Desk for a Support Agent (%s)', (mode) => {
  /** A screenshot's name: `desk-rights-<what>`, with the mode after `desk-rights` but for MONOLITH. */
  const shot = (what: string) =>
    mode === 'monolith' ? `desk-rights-${what}` : `desk-rights-${mode}-${what}`;
  let target: DeskTarget;
  let browser: Browser;
  let page: Page;
  /** Requests the Desk made for the agent that the server refused or failed: `<status> <path>`. */
  const refused: string[] = [];

  beforeAll(async () => {
    target = await startDeskTarget(mode);
    browser = await launchChromium();
    // The Administrator creates the agent on the Users page and a customer through the crm form.
    const admin = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(admin, target.deskUrl, 'Administrator', E2E_ADMIN_PASSWORD);
    await admin.goto(`${target.deskUrl}#/users`);
    await admin.getByLabel('User name').fill(AGENT);
    await admin.getByLabel(/^Password/).fill(AGENT_PASSWORD);
    await admin.getByRole('checkbox', { name: 'Support Agent' }).check();
    await admin.getByRole('button', { name: 'Create user' }).click();
    await admin.getByRole('row', { name: /sam\.agent/ }).waitFor();
    await admin.goto(`${target.deskUrl}#/app/crm.Customer/new`);
    await admin.getByLabel('Customer name').fill(CUSTOMER);
    await admin.getByLabel('Email').fill('grace@example.com');
    await admin.getByRole('button', { name: 'Save customer' }).click();
    await admin.getByRole('status').getByText(`Customer “${CUSTOMER}” saved.`).waitFor();
    await admin.close();

    // One browser context: a second tab of it shares the agent's session.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    await signIn(page, target.deskUrl, AGENT, AGENT_PASSWORD);
    page.on('response', (response) => {
      if (response.status() >= 400) refused.push(`${response.status()} ${new URL(response.url()).pathname}`);
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await target?.stop();
    target?.dispose();
  });

  it('starts a browser never signed in at the sign-in screen without a refused request, and keeps a reload signed in', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const fresh = await context.newPage();
    const unauthorized: string[] = [];
    fresh.on('response', (r) => {
      if (r.status() === 401) unauthorized.push(new URL(r.url()).pathname);
    });
    await fresh.goto(target.deskUrl);
    await fresh.getByLabel('Password').waitFor();
    await fresh.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(unauthorized).toEqual([]);
    await signIn(fresh, target.deskUrl, AGENT, AGENT_PASSWORD);
    await fresh.reload();
    await nav(fresh).getByRole('link', { name: 'Tickets', exact: true }).waitFor();
    expect(unauthorized).toEqual([]);
    await context.close();
  });

  it('shows on Home only what the agent may read, and no Developer details', async () => {
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    await page
      .getByRole('link', { name: /^Tickets/ })
      .first()
      .waitFor();
    // The crm card counts customers for the agent too (the agent may read them); no card may show a failure.
    await page.getByRole('main').locator('.desk-widget__figure').first().waitFor();
    await expectNoErrorText(page);
    const links = await nav(page).getByRole('link').allTextContents();
    expect(links).toContain('Customers');
    for (const hidden of ['Leads', 'Items', 'Warehouses', 'Users']) expect(links).not.toContain(hidden);
    expect(await page.getByRole('button', { name: 'Developer details' }).count()).toBe(0);
    // Every landmark of one role has a name of its own (what axe's landmark-unique asks).
    const landmarks = await page.evaluate(() =>
      [...document.querySelectorAll('main, nav, header, aside, section, form')]
        .map((el) => {
          const labelledBy = el.getAttribute('aria-labelledby');
          const name = labelledBy
            ? labelledBy
                .split(' ')
                .map((id) => document.getElementById(id)?.textContent ?? '')
                .join(' ')
            : (el.getAttribute('aria-label') ?? '');
          return { role: el.getAttribute('role') ?? el.tagName.toLowerCase(), name };
        })
        // A section or form is a landmark only with a name; main, nav, header and aside always are.
        .filter((l) => l.name || !['section', 'form'].includes(l.role))
        .map((l) => `${l.role}:${l.name}`),
    );
    expect(landmarks.length).toBeGreaterThan(2);
    expect(new Set(landmarks).size).toBe(landmarks.length);
    await screenshot(page, shot('home'));
    expect(await axeViolations(page)).toEqual([]);
  });

  it('offers in Ctrl+K only readable lists and New Ticket, and finds the customer by name', async () => {
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Search' });
    const input = palette.getByRole('combobox');
    await input.fill('new');
    await palette.getByRole('option', { name: /New Ticket/ }).waitFor();
    const creations = await palette.locator('.desk-palette__label').allTextContents();
    expect(creations.filter((l) => l.startsWith('New '))).toEqual(['New Ticket']);
    await input.fill('');
    const lists = await palette.locator('.desk-palette__label').allTextContents();
    expect(lists).toEqual(['Customers', 'Tickets']);

    await input.fill('Grace');
    await palette.getByRole('option', { name: new RegExp(CUSTOMER) }).waitFor();
    expect(await palette.locator('.desk-palette__status').textContent()).not.toMatch(/did not answer/);
    await screenshot(page, shot('palette'));
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
  });

  it('lists customers without New, Delete or row selection', async () => {
    await nav(page).getByRole('link', { name: 'Customers', exact: true }).click();
    await page.getByRole('cell', { name: CUSTOMER, exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /New Customer/ }).count()).toBe(0);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    await expectNoErrorText(page);
    await screenshot(page, shot('customers'));
    expect(await axeViolations(page)).toEqual([]);
  });

  it('opens a customer read-only, its personal data masked, with no Save or Delete', async () => {
    await page.getByRole('link', { name: CUSTOMER, exact: true }).click();
    await page.getByText(/You may view this customer but not change it/).waitFor();
    expect(await page.getByRole('button', { name: /Save/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await page.getByLabel('Email').inputValue()).toBe('••••••');
    expect(await page.getByLabel(/^Customer Name/).isDisabled()).toBe(true);
    await expectNoErrorText(page);
    await screenshot(page, shot('customer'));
    expect(await axeViolations(page)).toEqual([]);
  });

  it('sees the Users page as a refusal, not as a failure', async () => {
    await page.goto(`${target.deskUrl}#/users`);
    await page.getByText('Only a System Manager may manage users.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByRole('main').textContent()).not.toMatch(/did not answer/);
  });

  it('is held on a changed ticket form before leaving, saves it with Ctrl+S, and is told of a Link naming no one', async () => {
    await page.goto(`${target.deskUrl}#/app/support.Ticket/new`);
    await page.getByLabel(/^Subject/).fill('Printer on fire');
    const customer = page.getByRole('combobox', { name: /^Customer/ });
    await customer.fill('Nobody at all');
    await page.getByLabel(/^Subject/).focus();
    await page
      .getByText('No record matches “Nobody at all”. Pick one from the list, or clear Customer.')
      .waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await customer.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, shot('link-error'));
    expect(await axeViolations(page)).toEqual([]);

    // Leaving the changed form asks first; Stay keeps the edits.
    await nav(page).getByRole('link', { name: 'Customers', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Leave without saving?' });
    await dialog.waitFor();
    await screenshot(page, shot('leave'));
    await dialog.getByRole('button', { name: 'Stay' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByLabel(/^Subject/).inputValue()).toBe('Printer on fire');
    expect(new URL(page.url()).hash).toBe('#/app/support.Ticket/new');

    // The customer picked from the list, Ctrl+S saves.
    await customer.fill('Grace');
    await page.getByRole('option', { name: new RegExp(CUSTOMER) }).click();
    const created = page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/resource/support.Ticket',
    );
    await page.keyboard.press('Control+s');
    const response = await created;
    expect(response.status()).toBe(201);
    expect(((await response.json()) as { data: { customer: string } }).data.customer).toMatch(/^CUST-/);
    await page
      .getByRole('status')
      .getByText(/Ticket “Printer on fire” saved\./)
      .waitFor();
    await expectNoErrorText(page);
    await screenshot(page, shot('ticket-saved'));
    expect(await axeViolations(page)).toEqual([]);
  });

  it("lists the ticket's changes with their author in its timeline, and takes a comment", async () => {
    const ticketUrl = page.url();
    await page.getByLabel(/^Priority/).selectOption('High');
    const saved = page.waitForResponse((r) => r.request().method() === 'PUT');
    await page.keyboard.press('Control+s');
    expect((await saved).status()).toBe(200);
    const activity = page.getByRole('region', { name: 'Activity' });
    await activity.getByText('changed Priority from “Medium” to “High”').waitFor();
    const lines = await activity.getByRole('listitem').allTextContents();
    expect(lines[0]).toMatch(/^sam\.agent created this ticket/);
    expect(lines[1]).toMatch(/^sam\.agent changed Priority from “Medium” to “High”/);

    await activity.getByRole('textbox', { name: 'Add a comment' }).fill('Called the customer back.');
    await activity.getByRole('button', { name: 'Comment' }).click();
    const comment = activity.getByRole('listitem').filter({ hasText: 'Called the customer back.' });
    await comment.waitFor();
    expect(await comment.getByRole('button', { name: 'Edit' }).count()).toBe(1);
    expect(await comment.getByRole('button', { name: 'Delete' }).count()).toBe(1);
    await expectNoErrorText(page);
    await screenshot(page, shot('timeline'));
    expect(await axeViolations(page)).toEqual([]);
    expect(page.url()).toBe(ticketUrl);
  });

  it('shows both versions when two tabs edit one ticket, and keeps the chosen one', async () => {
    const ticketUrl = page.url();
    const other = await page.context().newPage();
    await other.goto(ticketUrl);
    await other.getByLabel(/^Subject/).waitFor();
    // The other tab saves first.
    await other.getByLabel(/^Subject/).fill('Printer on fire, second floor');
    const first = other.waitForResponse((r) => r.request().method() === 'PUT');
    await other.getByRole('button', { name: 'Save' }).click();
    expect((await first).status()).toBe(200);

    // This tab still shows the version it loaded: its save is refused, nothing is overwritten.
    await page.getByLabel(/^Subject/).fill('Printer fixed');
    const refused = page.waitForResponse((r) => r.request().method() === 'PUT');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect((await refused).status()).toBe(409);
    const conflict = page.getByRole('alert').filter({ hasText: 'Someone else saved this record' });
    await conflict.waitFor();
    const row = conflict.getByRole('row', { name: /Subject/ });
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      'Printer fixed',
      'Printer on fire, second floor',
    ]);
    await screenshot(page, shot('conflict'));

    const kept = page.waitForResponse((r) => r.request().method() === 'PUT');
    await conflict.getByRole('button', { name: 'Save my version' }).click();
    expect((await kept).status()).toBe(200);
    await page
      .getByRole('status')
      .getByText(/Ticket “Printer fixed” saved\./)
      .waitFor();
    await other.close();
  });

  it('attaches a file to the ticket, and downloads it under its name with its bytes', async () => {
    await page.goto(`${target.deskUrl}#/app/support.Ticket/TKT-00001`);
    const attachments = page.getByRole('region', { name: 'Attachments' });
    await attachments.getByText('No files are attached to this ticket.').waitFor();
    const content = 'Printer log\nline 2: smoke from the toner\n';
    const choosing = page.waitForEvent('filechooser');
    await attachments.getByRole('button', { name: 'Attach file' }).click();
    await (await choosing).setFiles({
      name: 'printer-log.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(content),
    });
    const link = attachments.getByRole('link', { name: 'printer-log.txt' });
    await link.waitFor();
    expect(await attachments.getByRole('listitem').textContent()).toMatch(/sam\.agent/);
    await page.getByRole('region', { name: 'Activity' }).getByText('attached printer-log.txt').waitFor();

    const downloading = page.waitForEvent('download');
    await link.click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('printer-log.txt');
    expect(readFileSync((await download.path())!, 'utf8')).toBe(content);
    await expectNoErrorText(page);
    await screenshot(page, shot('attachments'));

    // A file past `attachments.max_bytes` (10 MiB) is refused, and the form says the limit next to the button.
    // Handed to the browser by its path: a buffer would be copied through the DevTools protocol, which took
    // most of this test's time for 10 MiB.
    const scanDir = mkdtempSync(join(tmpdir(), 'desk-e2e-scan-'));
    const scan = join(scanDir, 'scan.bin');
    writeFileSync(scan, '');
    truncateSync(scan, 10 * 1024 * 1024 + 1);
    const refusing = page.waitForEvent('filechooser');
    await attachments.getByRole('button', { name: 'Attach file' }).click();
    await (await refusing).setFiles(scan);
    await attachments
      .getByRole('alert')
      .getByText('“scan.bin” is too large. An attachment is at most 10 MiB (10485760 bytes).')
      .waitFor();
    // Removed only now: the browser reads the file when it sends it, after `setFiles` has returned.
    rmSync(scanDir, { recursive: true, force: true });
    expect(await attachments.getByRole('link').allTextContents()).toEqual(['printer-log.txt']);
    await screenshot(page, shot('attachment-too-large'));
  });

  it('exports the customers list as CSV', async () => {
    await page.goto(`${target.deskUrl}#/app/crm.Customer`);
    await page.getByRole('cell', { name: CUSTOMER, exact: true }).waitFor();
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('Customers.csv');
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text.split('\r\n').filter(Boolean)).toEqual([
      'ID,Customer Name,Status',
      'CUST-00001,Grace Hopper,Active',
    ]);
  });

  it('follows a dark system setting, and the header choice over it', async () => {
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${target.deskUrl}#/app/support.Ticket/TKT-00001`);
    await page.getByRole('region', { name: 'Activity' }).waitFor();
    expect(await background()).toBe('rgb(17, 22, 31)');
    await screenshot(page, shot('dark-ticket'));
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${target.deskUrl}#/`);
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    await screenshot(page, shot('dark-home'));
    expect(await axeViolations(page)).toEqual([]);
    // The list's tools in the dark: the filter builder open on the customers list.
    await page.goto(`${target.deskUrl}#/app/crm.Customer`);
    await page.getByRole('cell', { name: CUSTOMER, exact: true }).waitFor();
    await page.getByRole('button', { name: /^Filter/ }).click();
    await page.getByRole('form', { name: 'New filter' }).waitFor();
    await screenshot(page, shot('dark-list-filter'));
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await page.goto(`${target.deskUrl}#/`);
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();

    // Light chosen in the header wins over the dark system setting, and is kept across a reload.
    await page.getByRole('combobox', { name: 'Colour theme' }).selectOption('light');
    expect(await background()).toBe('rgb(246, 247, 249)');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    expect(await background()).toBe('rgb(246, 247, 249)');
    await page.getByRole('combobox', { name: 'Colour theme' }).selectOption('system');
    expect(await background()).toBe('rgb(17, 22, 31)');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it("shows a Sales User, who may change customers but not see their personal data, crm's form with it masked and read-only", async () => {
    const admin = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(admin, target.deskUrl, 'Administrator', E2E_ADMIN_PASSWORD);
    await admin.goto(`${target.deskUrl}#/users`);
    await admin.getByLabel('User name').fill(SALES);
    await admin.getByLabel(/^Password/).fill(SALES_PASSWORD);
    await admin.getByRole('checkbox', { name: 'Sales User' }).check();
    await admin.getByRole('button', { name: 'Create user' }).click();
    await admin.getByRole('row', { name: /sally\.sales/ }).waitFor();
    await admin.close();

    const sales = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await sales.goto(target.deskUrl);
    await sales.getByLabel(/User/i).first().fill(SALES);
    await sales.getByLabel('Password').fill(SALES_PASSWORD);
    await sales.getByRole('button', { name: 'Sign in' }).click();
    await nav(sales).getByRole('link', { name: 'Customers', exact: true }).click();
    await sales.getByRole('link', { name: CUSTOMER, exact: true }).click();
    // crm's own form (a remote's): editable for this user, but not their personal data.
    await sales.getByRole('button', { name: 'Save customer' }).waitFor();
    const email = sales.getByLabel('Email');
    expect(await email.inputValue()).toBe('••••••');
    expect(await email.getAttribute('readonly')).not.toBeNull();
    await sales.getByText('Hidden: personal data you may not see.').first().waitFor();
    await sales.getByLabel('Customer name').fill(`${CUSTOMER} (edited)`);
    await sales.getByText('Unsaved changes').waitFor();
    await screenshot(sales, shot('sales-customer-masked'));
    expect(await axeViolations(sales)).toEqual([]);

    // A link sorting and filtering by personal data this user may not see: the list leaves both out, says
    // so, and still lists the customers.
    await sales.getByRole('button', { name: 'Cancel' }).click();
    await sales.getByRole('button', { name: 'Discard changes' }).click();
    await sales.goto(`${target.deskUrl}#/app/crm.Customer?filter=email:eq:grace@example.com&sort=email:asc`);
    await sales.getByText("The link's filter on Email was left out").waitFor();
    await sales.getByText('Not sorted by Email').waitFor();
    await sales.getByRole('link', { name: CUSTOMER, exact: true }).waitFor();
    // Gone from the address too: a bookmark of this page asks for neither.
    await sales.waitForFunction(() => !/email/.test(window.location.hash));
    await screenshot(sales, shot('sales-customers-link-left-out'));
    expect(await axeViolations(sales)).toEqual([]);
    await sales.context().close();
  });

  it('made no request after sign-in that the server refused, but the conflict and the file too large', () => {
    const expected = new Set([
      '409 /api/resource/support.Ticket/TKT-00001',
      '413 /api/resource/support.Ticket/TKT-00001/attachments',
    ]);
    expect(refused.filter((r) => !expected.has(r))).toEqual([]);
  });
});
