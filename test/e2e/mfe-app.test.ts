/**
 * A team's app from outside the repository, in Chromium: `m new app` into a temporary folder, `npm install`,
 * `npm test`, `npm run build`, `npm start` (a MONOLITH Desk with the platform's apps and this one). The
 * Desk's navigation shows the Note DocType, the app's own remote form creates a Note whose email leaves the
 * browser as a JWE, and the list shows it. Each step is timed (printed at the end).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NatsServerHandle, startNatsServer } from '../helpers/nats-server';
import { launchChromium, savedRecordOpened, screenshot } from './support/browser';
import { E2E_ADMIN_PASSWORD, freePort, stopProcess } from './support/desk-target';
import { type ScaffoldedApp, type StartedApp, scaffold, startApp } from './support/scaffolded-app';

const COMPACT_JWE = /^[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/;
const npm = 'npm';
const root = join(import.meta.dirname, '..', '..');

function appLink(page: Page, label: string) {
  return page.getByRole('navigation', { name: 'Apps' }).getByRole('link', { name: label, exact: true });
}

let app: ScaffoldedApp;

beforeAll(() => {
  app = scaffold('notes');
  // The team's first command decides for npm which dependencies' install scripts run (package.json's
  // allowScripts): it asks the team nothing.
  expect(app.installOutput).not.toMatch(/install-scripts|allowScripts/);
  app.run('npm test', npm, ['test']);
  app.run('npm run typecheck', npm, ['run', 'typecheck']);
  app.run('npm run build', npm, ['run', 'build']);
});

afterAll(() => {
  app?.dispose();
  if (app) console.log(`scaffold timings (ms): ${JSON.stringify(app.timings)}`);
});

async function signIn(page: Page, deskUrl: string): Promise<void> {
  await page.goto(deskUrl);
  await page.getByLabel('User', { exact: true }).fill('Administrator');
  await page.getByLabel('Password').fill(E2E_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await appLink(page, 'Notes').waitFor();
}

/** Points in {@link createNote} where a test times a step or takes a screenshot. */
interface NoteSteps {
  /** The remote form has rendered. */
  formShown?(): void;
  /** The form is filled in, not yet saved. */
  filled?(): Promise<unknown>;
  /** The list shows the new Note. */
  listed?(): Promise<unknown>;
}

/** Fills the app's own Note form and saves it; checks the email left the browser as a JWE. */
async function createNote(
  page: Page,
  deskUrl: string,
  note: { title: string; body: string; email: string; kid?: RegExp },
  steps: NoteSteps = {},
) {
  await page.goto(`${deskUrl}#/app/notes.Note/new`);
  await page.getByText('notes note form').waitFor();
  steps.formShown?.();
  await page.getByLabel('Title').fill(note.title);
  await page.getByLabel('Body').fill(note.body);
  await page.getByLabel('Email').fill(note.email);
  await steps.filled?.();
  const sent = page.waitForRequest(
    (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/resource/notes.Note',
  );
  await page.getByRole('button', { name: 'Save note' }).click();
  const request = await sent;
  const response = await request.response();
  expect(request.headers()['content-type']).toBe('application/jose');
  expect(request.postData() ?? '').toMatch(COMPACT_JWE);
  expect(request.postData() ?? '').not.toContain(note.email);
  // The key it is encrypted to: the gateway's (MONOLITH), or the notes service's own (MACROSERVICE).
  if (note.kid) expect(String(decodeProtectedHeader(request.postData() ?? '').kid)).toMatch(note.kid);
  expect(response?.status()).toBe(201);
  const created = (await response!.json()) as { data: { name: string; email: string; title: string } };
  expect(created.data).toMatchObject({ title: note.title, email: note.email });
  await savedRecordOpened(page, 'notes.Note');
  await page.goto(`${deskUrl}#/app/notes.Note`);
  await page.getByRole('cell', { name: note.title, exact: true }).waitFor();
  await steps.listed?.();
}

describe('a scaffolded app in a MONOLITH Desk', () => {
  let server: StartedApp;
  let browser: Browser;
  let page: Page;
  const suffix = Date.now().toString(36);
  const note = {
    title: `First note ${suffix}`,
    body: 'Written from the team repository.',
    email: `nora.${suffix}@example.com`,
    // One process, one key ring: the gateway's own key.
    kid: /^[\w-]{43}$/,
  };

  beforeAll(async () => {
    const started = Date.now();
    server = await startApp(app);
    app.timings['npm start (until discoverable)'] = Date.now() - started;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('built mf-manifest.json next to remoteEntry.js: the exposed views and the shared React at the Desk version', () => {
    const manifest = JSON.parse(readFileSync(join(app.dir, 'static', 'mfe', 'mf-manifest.json'), 'utf8')) as {
      name: string;
      exposes: Array<{ path: string }>;
      shared: Array<{ name: string; version: string; singleton: boolean }>;
    };
    expect(manifest.name).toBe('notes');
    expect(manifest.exposes.map((e) => e.path)).toContain('./views');
    expect(manifest.shared.find((s) => s.name === 'react')).toMatchObject({
      version: '19.3.1',
      singleton: true,
    });
  });

  it('shows the Note DocType in the navigation next to the platform apps', async () => {
    const started = Date.now();
    await signIn(page, server.deskUrl);
    await appLink(page, 'Customers').waitFor();
    app.timings['sign-in to Note in navigation'] = Date.now() - started;
    await screenshot(page, 'mfe-app-home');
  });

  it("creates a Note with the app's own form, its email sent as a JWE, and lists it", async () => {
    const started = Date.now();
    await createNote(page, server.deskUrl, note, {
      formShown: () => {
        app.timings['first render of the remote form'] = Date.now() - started;
      },
      filled: () => screenshot(page, 'mfe-app-note-form'),
      listed: () => screenshot(page, 'mfe-app-note-list'),
    });
  });

  it('serves a DocType added to the app folder while npm start runs: discovery names it, the open Desk lists it at its next navigation', async () => {
    writeFileSync(
      join(app.dir, 'part.ts'),
      `import { defineDocType, z } from '@framework-m/desk/app';

/** A part, numbered. */
export const Part = defineDocType({
  name: 'notes.Part',
  label: 'Part',
  titleField: 'code',
  namePrefix: 'PART',
  model: z.object({ code: z.string().trim().min(1).max(40).meta({ label: 'Code', inList: true }) }),
});
`,
    );
    const appFile = join(app.dir, 'app.ts');
    writeFileSync(
      appFile,
      readFileSync(appFile, 'utf8')
        .replace(
          "import { Note } from './doctypes';",
          "import { Note } from './doctypes';\nimport { Part } from './part';",
        )
        .replace('doctypes: [Note],', 'doctypes: [Note, Part],')
        .replace(
          "menus: [{ label: 'Notes', doctype: Note.name }],",
          "menus: [\n    { label: 'Notes', doctype: Note.name },\n    { label: 'Parts', doctype: Part.name },\n  ],",
        ),
    );
    // The same process reloads its apps (no restart): discovery answers for the new DocType.
    const owner = async () => {
      const response = await fetch(`${server.origin}/api/gateway/discovery/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ resources: ['notes.Part'] }),
      });
      return ((await response.json()) as { resources?: Record<string, string | null> }).resources?.[
        'notes.Part'
      ];
    };
    while ((await owner()) !== 'notes') {
      if (/the apps were not reloaded/.test(server.output())) throw new Error(server.output());
      await new Promise((r) => setTimeout(r, 250));
    }
    // The open Desk learns it at its next in-app navigation (discovery brings the changed manifest, the
    // catalog its metadata), without a reload: a mark set on the page before is still there after.
    await page.evaluate(() => {
      (window as { stillOpen?: boolean }).stillOpen = true;
    });
    await page.getByRole('link', { name: 'Home', exact: true }).click();
    await appLink(page, 'Parts').click();
    await page.getByRole('heading', { name: 'Parts', exact: true }).waitFor();
    expect(await page.evaluate(() => (window as { stillOpen?: boolean }).stillOpen)).toBe(true);
    await screenshot(page, 'mfe-app-new-doctype');
  });

  it('refuses a remoteEntry.js that changed after its manifest was published, contained', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const tampered = await context.newPage();
      await tampered.route(/\/desk\/assets\/notes\/remoteEntry\.js/, async (route) => {
        const original = await route.fetch();
        await route.fulfill({
          response: original,
          body: `${await original.text()}\n// changed after publishing\n`,
        });
      });
      await tampered.goto(server.deskUrl);
      await tampered.getByLabel('User', { exact: true }).fill('Administrator');
      await tampered.getByLabel('Password').fill(E2E_ADMIN_PASSWORD);
      await tampered.getByRole('button', { name: 'Sign in' }).click();
      await appLink(tampered, 'Notes').waitFor();

      await tampered.goto(`${server.deskUrl}#/app/notes.Note/new`);
      const notice = tampered.getByRole('alert').filter({ hasText: 'Part of this page could not be loaded' });
      await notice.waitFor();
      // Its own message, and no Try again: loading the same changed file again cannot help.
      expect(await notice.textContent()).toContain('Its files changed after they were published');
      expect(await notice.getByRole('button', { name: 'Try again' }).count()).toBe(0);
      // The Desk's generic form stands in; the other apps keep working.
      await tampered.getByRole('button', { name: 'Save' }).waitFor();
      await screenshot(tampered, 'mfe-app-integrity-failed');
      await appLink(tampered, 'Customers').click();
      await tampered.getByRole('heading', { name: 'Customers', exact: true }).waitFor();
    } finally {
      await context.close();
    }
  });
});

describe("a developer's dev server overriding the app's remote in the running Desk", () => {
  let server: StartedApp;
  let dev: ChildProcess;
  let devOutput = '';
  let browser: Browser;
  let devPort = 0;

  beforeAll(async () => {
    server = await startApp(app);
    devPort = await freePort();
    dev = spawn(npm, ['run', 'dev', '--', '--port', String(devPort)], {
      cwd: app.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    dev.stdout!.on('data', (c: Buffer) => {
      devOutput += c.toString();
    });
    dev.stderr!.on('data', (c: Buffer) => {
      devOutput += c.toString();
    });
    const deadline = Date.now() + 120_000;
    while (
      !(await fetch(`http://127.0.0.1:${devPort}/remoteEntry.js`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline || dev.exitCode !== null)
        throw new Error(`npm run dev did not serve:\n${devOutput}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (dev?.pid !== undefined && dev.exitCode === null) {
      const exited = new Promise((r) => dev.once('exit', r));
      process.kill(-dev.pid, 'SIGTERM');
      await exited;
    }
    await server?.stop();
  });

  it('loads the remote from the dev server, shows an edit without a navigation keeping the form state, and resets', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const entry = `http://127.0.0.1:${devPort}/remoteEntry.js`;
    // The home page's widgets may load the remote already: listen from the start.
    const fromDevServer = page.waitForRequest((r) => r.url().startsWith(`http://127.0.0.1:${devPort}/`));
    await signIn(page, `${server.deskUrl}?override=notes=${encodeURIComponent(entry)}`);
    const banner = page.getByRole('status', { name: 'Remote overrides' });
    await banner.getByText(entry).waitFor();
    expect(new URL(page.url()).search).toBe('');

    await page.goto(`${server.deskUrl}#/app/notes.Note/new`);
    await fromDevServer;
    await page.getByText('notes note form', { exact: true }).waitFor();
    await page.getByLabel('Title').fill('Typed before the edit');
    await page.evaluate(() => {
      (window as { __sameDocument?: boolean }).__sameDocument = true;
    });
    await screenshot(page, 'mfe-app-override-banner');

    const form = join(app.dir, 'ui', 'NoteForm.tsx');
    const started = Date.now();
    writeFileSync(form, readFileSync(form, 'utf8').replace('notes note form', 'notes note form, edited'));
    await page.getByText('notes note form, edited').waitFor({ timeout: 60_000 });
    app.timings['edit to update in the open Desk'] = Date.now() - started;
    expect(await page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    expect(new URL(page.url()).hash).toBe('#/app/notes.Note/new');
    // The form kept what was typed: the edited component was swapped in place, not remounted.
    expect(await page.getByLabel('Title').inputValue()).toBe('Typed before the edit');
    await screenshot(page, 'mfe-app-override-hot-update');

    // A syntax error: the dev build fails, and the Desk shows where and why over the remote's area.
    const good = readFileSync(form, 'utf8');
    const lines = good.split('\n');
    const broken = lines.findIndex((line) => line.startsWith('type Values'));
    writeFileSync(form, [...lines.slice(0, broken), 'const broken = (;', ...lines.slice(broken)].join('\n'));
    const overlay = page.getByRole('alert', { name: 'The notes dev build failed' });
    await overlay.waitFor({ timeout: 60_000 });
    await overlay.getByText(new RegExp(`^ui/NoteForm\\.tsx:${broken + 1}:\\d+$`)).waitFor();
    expect(await overlay.locator('pre').first().textContent()).toMatch(/Unexpected|Expected/);
    // The form is still there underneath, and the rest of the Desk is not covered.
    expect(await page.getByLabel('Title').inputValue()).toBe('Typed before the edit');
    await appLink(page, 'Customers').click({ trial: true });
    await screenshot(page, 'dev-overlay');

    // The fix builds: the overlay goes, the hot update lands in the same document, the typed value stays.
    writeFileSync(form, good.replace('notes note form, edited', 'notes note form, fixed'));
    await page.getByText('notes note form, fixed').waitFor({ timeout: 60_000 });
    await overlay.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    expect(await page.getByLabel('Title').inputValue()).toBe('Typed before the edit');

    await page.goto(`${server.deskUrl}#/`);
    // The form guards its unsaved title (the scaffold registers it with `guardLeave`): leaving asks first.
    await page.getByRole('alertdialog', { name: 'Leave without saving?' }).waitFor();
    await page.getByRole('button', { name: 'Discard changes' }).click();
    // The header's Developer details toggle shows the remotes' details on the home page.
    await page.getByRole('button', { name: 'Developer details' }).click();
    await page.locator('summary', { hasText: 'Developer details' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'notes' }) });
    await row.getByText('overridden').waitFor();
    expect(await row.textContent()).toContain(entry);
    const crmRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'crm' }) });
    expect(await crmRow.textContent()).toMatch(/sha384-[A-Za-z0-9+/]{64}/);
    await screenshot(page, 'mfe-app-developer-details');

    await banner.getByRole('button', { name: 'Reset notes' }).click();
    await page.goto(`${server.deskUrl}#/app/notes.Note/new`);
    await page.getByText('notes note form', { exact: true }).waitFor();
    expect(await banner.count()).toBe(0);
    expect(await page.evaluate(() => localStorage.getItem('desk.remote-overrides'))).toBe('{}');
  });
});

describe('the scaffolded app offline: npm run dev -- --offline, its backend inside the browser', () => {
  let dev: ChildProcess;
  let devOutput = '';
  let browser: Browser;
  let deskUrl = '';

  beforeAll(async () => {
    const port = await freePort();
    // No server, no database, no NATS: only the dev server of the app folder.
    dev = spawn(npm, ['run', 'dev', '--', '--offline', '--port', String(port)], {
      cwd: app.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    for (const stream of [dev.stdout!, dev.stderr!])
      stream.on('data', (c: Buffer) => {
        devOutput += c.toString();
      });
    deskUrl = `http://127.0.0.1:${port}/desk/`;
    // The dev server holds requests until webpack has built the shell and the remote.
    const deadline = Date.now() + 240_000;
    while (
      !(await fetch(deskUrl).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline || dev.exitCode !== null)
        throw new Error(`npm run dev -- --offline did not serve:\n${devOutput}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (dev?.pid !== undefined && dev.exitCode === null) {
      const exited = new Promise((r) => dev.once('exit', r));
      process.kill(-dev.pid, 'SIGTERM');
      await exited;
    }
  });

  it("signs in, shows the app's own form, stores a Note and lists it, every API call answered in the browser", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const api: Array<{ path: string; fromWorker: boolean }> = [];
    page.on('response', (response) => {
      const path = new URL(response.url()).pathname;
      if (path.startsWith('/api/')) api.push({ path, fromWorker: response.fromServiceWorker() });
    });
    await page.goto(deskUrl);
    await page.getByLabel('User', { exact: true }).fill('Administrator');
    await page.getByLabel('Password').fill('admin');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await appLink(page, 'Notes').waitFor();

    await page.goto(`${deskUrl}#/app/notes.Note/new`);
    // Built from the folder's sources, which an earlier test may have edited ("notes note form, fixed").
    await page.getByText(/^notes note form/).waitFor();
    await page.getByLabel('Title').fill('Written offline');
    await page.getByLabel('Email').fill('off.line@example.com');
    const saved = page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/resource/notes.Note',
    );
    await page.getByRole('button', { name: 'Save note' }).click();
    expect((await saved).status()).toBe(201);
    await savedRecordOpened(page, 'notes.Note');
    await page.goto(`${deskUrl}#/app/notes.Note`);
    await page.getByRole('cell', { name: 'Written offline', exact: true }).waitFor();
    await screenshot(page, 'mfe-app-offline-list');
    // The app has no sample records: the header says offline, not sample data.
    expect(await page.locator('.desk-header__mode--dev').textContent()).toBe('offline');
    // A reload (an edit's rebuild) keeps the session and the stored Note.
    await page.reload();
    await page.getByRole('cell', { name: 'Written offline', exact: true }).waitFor();
    expect(await page.getByLabel('Password').count()).toBe(0);

    // The metadata, the session and the records came from the app's backend in the service worker.
    expect(api.map((a) => a.path)).toEqual(
      expect.arrayContaining(['/api/meta/notes', '/api/resource/notes.Note']),
    );
    expect(api.filter((a) => !a.fromWorker)).toEqual([]);
  });
});

describe('the scaffolded app as a MACROSERVICE service joining a gateway over NATS', () => {
  let nats: NatsServerHandle;
  let gateway: ChildProcess;
  let gatewayOutput = '';
  let gatewayData: string;
  let service: StartedApp;
  let browser: Browser;
  const gatewayPort = { value: 0 };
  const secret = randomBytes(32).toString('base64url');

  beforeAll(async () => {
    nats = await startNatsServer();
    gatewayPort.value = await freePort();
    gatewayData = mkdtempSync(join(tmpdir(), 'desk-team-gw-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(gatewayPort.value),
      PLATFORM_NATS_URL: nats.url,
      PLATFORM_INTERNAL_SECRET: secret,
      PLATFORM_DATA_DIR: gatewayData,
      PLATFORM_ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
      PLATFORM_CORE_SERVICES: 'notes',
    };
    for (const key of ['PLATFORM_PUBLIC_URL', 'PLATFORM_DATABASE_URL', 'PLATFORM_APPS', 'PLATFORM_MODE'])
      delete env[key];
    // The platform's own gateway, started from the platform's folder: it knows nothing of the app.
    gateway = spawn(
      process.execPath,
      [join(root, 'bin', 'm.js'), 'serve', '--mode', 'macroservice', '--build-missing'],
      {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    gateway.stdout!.on('data', (c: Buffer) => {
      gatewayOutput += c.toString();
    });
    gateway.stderr!.on('data', (c: Buffer) => {
      gatewayOutput += c.toString();
    });
    const started = Date.now();
    service = await startApp(app, {
      extra: ['--mode', 'macroservice', '--port', '0'],
      env: { PLATFORM_NATS_URL: nats.url, PLATFORM_INTERNAL_SECRET: secret },
      gatewayOrigin: `http://127.0.0.1:${gatewayPort.value}`,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\ngateway:\n${gatewayOutput}`);
    });
    app.timings['npm start -- --mode macroservice (until the gateway discovers it)'] = Date.now() - started;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    if (gateway) await stopProcess(gateway);
    await nats?.dispose();
    if (gatewayData) rmSync(gatewayData, { recursive: true, force: true });
  });

  it('is discovered by the running gateway; its own form creates a Note whose email is a JWE, and the list shows it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const deskUrl = `http://127.0.0.1:${gatewayPort.value}/desk/`;
    await signIn(page, deskUrl);
    const suffix = Date.now().toString(36);
    await createNote(page, deskUrl, {
      title: `Macro note ${suffix}`,
      body: 'Served by its own process.',
      email: `mac.${suffix}@example.com`,
      // Encrypted to the notes service's own key: the gateway forwards it unopened.
      kid: /^svc:notes:/,
    });
    await screenshot(page, 'mfe-app-macroservice-list');
  });
});
