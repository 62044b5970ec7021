/**
 * Personal data end to end in MACROSERVICE (docs/security.md#encrypted-to-the-owning-service,
 * docs/security.md#personal-data-at-rest, docs/operators.md#the-audit-log), on one platform: `npm run
 * start:macro` (a real nats-server, the gateway, one process per sample app) with crm's records on a real
 * PostgreSQL (`PLATFORM_DATABASE_URL_CRM`), every process logging at debug level. In Chromium an
 * Administrator creates a Customer with a known email from the Desk form. While the gateway holds that
 * create (crm stopped), a heap snapshot of the gateway is taken; it holds the JWE the browser sent, never the
 * email, and neither does anything the gateway logged. An Administrator's read returns the email and adds an
 * entry to crm's audit log, seen on the Audit page through the gateway; a reader without `read_pii` gets the
 * mask and adds none; a filter by the exact email finds the record. Once stopped, crm's tables, its
 * write-ahead log and a `pg_dump` hold no byte of the email, while the customer's name, stored in clear, is
 * found by the same search.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PII_MASK } from '../../src/protocol';
import { fileContains, filesContaining, heapSnapshot, whileHeldAt } from '../faults/helpers/leak-search';
import { type PostgresHandle, startPostgres } from '../faults/helpers/postgres-server';
import { launchChromium, screenshot } from './support/browser';
import { type DeskTarget, E2E_ADMIN_PASSWORD, startDeskTarget } from './support/desk-target';

const marker = Date.now().toString(36);
const customer = {
  name: `Ada Walk ${marker}`,
  email: `ada.walk-${marker}@example.com`,
  phone: '+44 20 7946 0311',
};
const READER = { name: 'reader.walk', password: 'reader-walk-password-0123' };
const temp = mkdtempSync(join(tmpdir(), 'e2e-pii-walk-'));
const snapshotDir = join(temp, 'snapshots');

let postgres: PostgresHandle | undefined;
let target: DeskTarget | undefined;
let browser: Browser | undefined;
let page: Page;
let customerName = '';

/** A number printed by start:macro or a process it relays, e.g. the gateway's PID. */
/** The last value `pattern` captured in what the platform printed (a restarted process prints anew). */
function printed(pattern: RegExp): string {
  const matches = [...target!.output().matchAll(new RegExp(pattern.source, 'g'))];
  const match = matches.at(-1);
  if (!match) throw new Error(`not printed: ${pattern}\n${target!.output()}`);
  return match[1]!;
}

/** What start:macro and crm printed: a crm that died and was restarted says why here. */
function crmLines(): string {
  return target!
    .output()
    .split('\n')
    .filter((line) => line.startsWith('[crm] ') || line.startsWith('start:macro: '))
    .join('\n');
}

/** A session at the gateway as a browser has it (cookie, CSRF token, Origin). */
async function session(user: string, password: string): Promise<Record<string, string>> {
  const origin = target!.origin;
  const res = await fetch(`${origin}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ usr: user, pwd: password }),
  });
  expect(res.status).toBe(200);
  const { csrf_token } = (await res.json()) as { csrf_token: string };
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': csrf_token, origin };
}

async function getJson<T>(path: string, headers: Record<string, string>): Promise<T> {
  const res = await fetch(`${target!.origin}${path}`, { headers });
  expect(`${res.status} ${path}`).toBe(`200 ${path}`);
  return (await res.json()) as T;
}

/** How many reveals of the customer crm's log holds, asked through the gateway. */
async function reveals(admin: Record<string, string>): Promise<number> {
  return (await getJson<{ total: number }>(`/api/audit?record=${encodeURIComponent(customerName)}`, admin))
    .total;
}

/** The lines the gateway printed (start:macro prefixes each process's lines with its name). */
function gatewayLog(): string {
  return target!
    .output()
    .split('\n')
    .filter((line) => line.startsWith('[gateway] '))
    .join('\n');
}

beforeAll(async () => {
  mkdirSync(snapshotDir, { recursive: true });
  postgres = await startPostgres();
  target = await startDeskTarget('macroservice', {
    PLATFORM_DATABASE_URL_CRM: postgres.url,
    PLATFORM_LOG_LEVEL: 'debug',
    // The gateway waits for crm while the test holds crm stopped and snapshots the gateway's heap.
    PLATFORM_UPSTREAM_TIMEOUT_MS: '300000',
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshotDir}`,
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await target?.stop();
  target?.dispose();
  await postgres?.dispose();
  rmSync(temp, { recursive: true, force: true });
});

describe('personal data end to end in MACROSERVICE over PostgreSQL', () => {
  it('creates a Customer from the Desk form; the gateway holding the create has no trace of the email', async () => {
    expect(target!.output()).toContain(
      'crm stores its records in the PostgreSQL of PLATFORM_DATABASE_URL_CRM',
    );
    await page.goto(target!.deskUrl);
    await page.getByLabel('User', { exact: true }).fill('Administrator');
    await page.getByLabel('Password').fill(E2E_ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`${target!.deskUrl}#/app/crm.Customer/new`);
    await page.getByRole('heading', { level: 2, name: 'Customer details' }).waitFor();
    await page.getByLabel('Customer name').fill(customer.name);
    await page.getByLabel('Email').fill(customer.email);
    await page.getByLabel('Phone').fill(customer.phone);

    // crm ran once, from its start to here: the pid and port below are its only ones.
    expect(crmLines().match(/start:macro: crm started/g), crmLines()).toHaveLength(1);
    const gatewayPid = Number(printed(/start:macro: gateway started \(PID (\d+)\)/));
    const crmPid = Number(printed(/start:macro: crm started \(PID (\d+)\)/));
    const crmPort = Number(printed(/\[crm\] Service crm on http:\/\/127\.0\.0\.1:(\d+)/));
    let request: Request | undefined;
    const { held: snapshot, answer: response } = await whileHeldAt(
      crmPid,
      crmPort,
      async () => {
        const sent = page.waitForRequest(
          (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/resource/crm.Customer',
        );
        await page.getByRole('button', { name: 'Save customer' }).click();
        request = await sent;
        return (await request.response())!;
      },
      () => heapSnapshot(gatewayPid, snapshotDir, target!.origin),
    );
    expect(request!.headers()['content-type']).toBe('application/jose');
    const jwe = request!.postData() ?? '';
    expect(jwe).not.toContain(customer.email);
    expect(response.status()).toBe(201);
    customerName = ((await response.json()) as { data: { name: string } }).data.name;

    // The snapshot was taken while the gateway held the create: the JWE is in it, the email is not.
    expect(await fileContains(snapshot, jwe.slice(0, 64))).toBe(true);
    expect(await fileContains(snapshot, customer.email)).toBe(false);
    expect(gatewayLog()).toMatch(
      /forward: POST \/api\/resource\/crm\.Customer -> crm 201 \(sealed JWE, \d+ bytes\)/,
    );
    // The Desk opens the saved record, a reveal of its own: once its requests are over, the page leaves,
    // so the reveals counted next are the test's alone.
    await page.getByRole('heading', { level: 1, name: customer.name }).waitFor();
    await page.waitForLoadState('networkidle');
    await page.goto('about:blank');
  });

  it("returns the email to an Administrator's read and audits it; a reader without read_pii gets the mask and adds nothing", async () => {
    expect(customerName).not.toBe('');
    const admin = await session('Administrator', E2E_ADMIN_PASSWORD);
    const added = await fetch(`${target!.origin}/api/method/platform.users.add`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ name: READER.name, password: READER.password, roles: ['Sales User'] }),
    });
    expect(added.status).toBe(200);
    const record = `/api/resource/crm.Customer/${encodeURIComponent(customerName)}`;

    const before = await reveals(admin);
    const read = await getJson<{ data: { email: string } }>(record, admin);
    expect(read.data.email).toBe(customer.email);
    expect(await reveals(admin)).toBe(before + 1);

    const reader = await session(READER.name, READER.password);
    const masked = await getJson<{ data: { email: string } }>(record, reader);
    expect(masked.data.email).toBe(PII_MASK);
    expect(await reveals(admin)).toBe(before + 1);
    const refused = await fetch(`${target!.origin}/api/audit`, { headers: reader });
    expect(refused.status).toBe(403);

    // Equality on the email still finds the record: crm compares the blind index.
    const filters = encodeURIComponent(JSON.stringify([['email', '=', customer.email]]));
    const found = await getJson<{ data: Array<{ name: string }> }>(
      `/api/resource/crm.Customer?filters=${filters}`,
      admin,
    );
    expect(found.data.map((r) => r.name)).toEqual([customerName]);
  });

  it("shows the reveals in the record's section and on the Audit page, read through the gateway", async () => {
    await page.goto(`${target!.deskUrl}#/app/crm.Customer/${encodeURIComponent(customerName)}`);
    await page.getByRole('heading', { level: 1, name: customer.name }).waitFor();
    const seenBy = page.getByRole('region', { name: 'Personal data seen by' });
    await seenBy
      .getByRole('listitem')
      .filter({ hasText: 'Administrator saw Email, Phone' })
      .first()
      .waitFor();
    expect(await seenBy.getByText(READER.name).count()).toBe(0);
    await page.evaluate(() => {
      for (const button of document.querySelectorAll<HTMLButtonElement>('button[aria-label="Dismiss"]'))
        button.click();
    });
    await page.getByRole('button', { name: 'Dismiss' }).first().waitFor({ state: 'detached' });
    await seenBy.scrollIntoViewIfNeeded();
    await screenshot(page, 'macroservice-pii-walk-seen-by');

    await page
      .getByRole('navigation', { name: 'Apps' })
      .getByRole('link', { name: 'Audit', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'The audit log is intact' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: customerName }).first();
    await row.waitFor();
    expect(await row.textContent()).toContain('Administrator');
    await screenshot(page, 'macroservice-pii-walk-audit-page');
  });

  it("leaves no trace of the email in the gateway's log, nor in crm's tables, write-ahead log or a pg_dump", async () => {
    await browser!.close();
    browser = undefined;
    await target!.stop();
    expect(gatewayLog()).toMatch(/forward: GET \/api\/resource\/crm\.Customer/);
    expect(gatewayLog()).not.toContain(customer.email);

    const dumpFile = join(temp, 'crm.sql');
    const dump = spawnSync(
      join(postgres!.binDir, 'pg_dump'),
      ['--dbname', postgres!.url, '--file', dumpFile, '--no-password'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(dump.stderr).toBe('');
    expect(dump.status).toBe(0);
    const backup = await readFile(dumpFile);
    expect(backup.includes(Buffer.from(customer.name))).toBe(true);
    expect(backup.includes(Buffer.from(customer.email))).toBe(false);

    // A checkpoint writes the committed rows into the table files, so the search reads them as well as the log.
    const client = new pg.Client({ connectionString: postgres!.url });
    await client.connect();
    try {
      await client.query('CHECKPOINT');
    } finally {
      await client.end();
    }
    const withName = await filesContaining(postgres!.dataDir, customer.name);
    expect(withName.some((f) => f.startsWith('base/'))).toBe(true);
    expect(withName.some((f) => f.startsWith('pg_wal/'))).toBe(true);
    expect(await filesContaining(postgres!.dataDir, customer.email)).toEqual([]);
  });
});
