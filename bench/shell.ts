/**
 * The Desk shell in headless Chromium against a real `m serve` (MONOLITH, production build, a temporary data
 * directory, a free port), measured in one run:
 * 1. bytes: the bytes Chromium received on the wire (the encoded body, as the server sent it: brotli or gzip
 *    by the `Accept-Encoding` Chromium sends, with the `Content-Encoding` it got) for every JavaScript response
 *    it downloaded before the first row of the first DocType list (`/desk/#/app/stock.Item`) was in the DOM,
 *    against the build's first-screen budget (printed as the ratio bytes / budget), with the files; what
 *    arrived after the row (the rest of the boot) is listed apart and not counted; then once more with
 *    `Accept-Encoding: gzip` only, against the same budget in gzip;
 * 2. time to list: navigation start to the first row of the stock.Item list (SEED_ITEMS records) in the DOM
 *    (in the page), and the same seen from Playwright (`goto` to a visible row); median of RUNS, each in a
 *    fresh browser context (empty HTTP cache) in the state of a tab that signed in earlier (the session
 *    cookie, and the CSRF token in sessionStorage), so the sign-in is not counted;
 * 3. parallel prewarm: `window.__DESK_BOOT__.prewarmMs` with each core service's requests (its metadata
 *    `GET /api/meta/<service>`, and the `remoteEntry.js` the home page's widgets load; the prewarm itself loads
 *    no remote) held DELAY_MS by `context.route`, against the same boot with the same routes and no delay; printed as
 *    (delayed - undelayed) / DELAY_MS: about 1x when the services warm in parallel, less when the wait
 *    overlaps work the boot does anyway (parsing, the first render).
 * Parts 1 and 2 run with the default core services (crm, stock); the server is then restarted on the same
 * data directory with three for part 3.
 *
 * The third core service is `support`, a real but data-only app (no UI remote) that is not installed by
 * default: part 3 starts the server with `PLATFORM_APPS=crm,stock,support` and
 * `PLATFORM_CORE_SERVICES=crm,stock,support`. Its prewarm makes one request of its own (its metadata), which is
 * held like the others'; the run counts the held requests per service and says so when a service made none.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../test/e2e/support/browser';
import { BENCH_ADMIN_PASSWORD, type DeskServer, startDeskServer } from './support/desk-server';
import {
  budgetedFirstScreen,
  ensureProductionBuild,
  FIRST_SCREEN_BUDGET_BROTLI,
  FIRST_SCREEN_BUDGET_GZIP,
} from './support/production-build';

const RUNS = 5;
const DELAY_MS = 300;
const SEED_ITEMS = 20;
const LIST_ROUTE = '#/app/stock.Item';
const ROW = 'table.desk-table tbody tr';
const CORE_SERVICES = ['crm', 'stock', 'support'];
/** A core service's own prewarm requests: its metadata and its remote entry. */
const PER_SERVICE = /\/(?:api\/meta\/([a-z][a-z0-9_]*)|desk\/assets\/([a-z][a-z0-9_]*)\/remoteEntry\.js)$/;

/** Where the SDK keeps a tab's CSRF token (src/sdk/http/csrf.ts); the Desk is signed in when it is there. */
const CSRF_STORAGE_KEY = 'framework-m.csrf-token';

/** A signed-in session: the cookie (in the storage state) and the CSRF token the login answered. */
interface Session {
  state: Awaited<ReturnType<BrowserContext['storageState']>>;
  csrfToken: string;
}

interface JsFile {
  path: string;
  /** The decoded body's length. */
  raw: number;
  /** Body bytes received (encoded, as sent), from Chromium's network layer. */
  wire: number;
  /** `Content-Encoding` of the response (`identity` when none). */
  encoding: string;
  /** True when the response finished after the first list row was in the DOM (not part of the first screen). */
  afterList: boolean;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const ms = (n: number) => `${n.toFixed(0)} ms`;

/** Signs in through the API and returns the session to start contexts with; creates `seed` stock.Items. */
async function signIn(browser: Browser, origin: string, seed: number): Promise<Session> {
  const context = await browser.newContext();
  try {
    const login = await context.request.post(`${origin}/api/method/login`, {
      data: { usr: 'Administrator', pwd: BENCH_ADMIN_PASSWORD },
    });
    if (!login.ok()) throw new Error(`login answered ${login.status()}: ${await login.text()}`);
    const { csrf_token } = (await login.json()) as { csrf_token: string };
    for (let i = 1; i <= seed; i++) {
      const created = await context.request.post(`${origin}/api/resource/stock.Item`, {
        headers: { 'x-csrf-token': csrf_token, origin },
        data: { item_code: `BENCH-${i}`, item_name: `Bench item ${i}`, quantity: i, price: i * 1.5 },
      });
      if (created.status() !== 201) {
        throw new Error(`creating stock.Item answered ${created.status()}: ${await created.text()}`);
      }
    }
    return { state: await context.storageState(), csrfToken: csrf_token };
  } finally {
    await context.close();
  }
}

/**
 * A fresh context (empty HTTP cache) in the state of a tab that signed in earlier: the session cookie, and
 * the CSRF token in sessionStorage, which is how the Desk knows it is signed in after a reload.
 */
async function signedInContext(
  browser: Browser,
  session: Session,
  acceptEncoding?: string,
): Promise<BrowserContext> {
  const context = await browser.newContext({
    storageState: session.state,
    ...(acceptEncoding ? { extraHTTPHeaders: { 'Accept-Encoding': acceptEncoding } } : {}),
  });
  await context.addInitScript(
    ([key, token]) => {
      sessionStorage.setItem(key, token);
    },
    [CSRF_STORAGE_KEY, session.csrfToken] as const,
  );
  return context;
}

/**
 * One visit of the list in a fresh context: times to the first row, and the JavaScript downloaded. With
 * `acceptEncoding`, every request sends that `Accept-Encoding` instead of Chromium's own (a client that
 * accepts only gzip).
 */
async function visitList(browser: Browser, session: Session, deskUrl: string, acceptEncoding?: string) {
  const context = await signedInContext(browser, session, acceptEncoding);
  try {
    const page = await context.newPage();
    await page.addInitScript((selector) => {
      const observer = new MutationObserver(() => {
        if (!document.querySelector(selector)) return;
        (window as { __BENCH_LIST_MS__?: number }).__BENCH_LIST_MS__ = performance.now();
        observer.disconnect();
      });
      observer.observe(document, { childList: true, subtree: true });
    }, ROW);
    let listSeen = false;
    const files: Promise<JsFile>[] = [];
    let sentEncoding = '';
    page.on('requestfinished', (request) => {
      const url = new URL(request.url());
      if (request.resourceType() !== 'script' && !url.pathname.endsWith('.js')) return;
      const afterList = listSeen;
      files.push(
        (async () => {
          const response = await request.response();
          const [sizes, headers, sent] = await Promise.all([
            request.sizes(),
            response?.allHeaders() ?? Promise.resolve({} as Record<string, string>),
            request.allHeaders(),
          ]);
          sentEncoding ||= sent['accept-encoding'] ?? '';
          const body = await response?.body().catch(() => undefined);
          return {
            path: url.pathname,
            raw: body?.length ?? 0,
            wire: sizes.responseBodySize,
            encoding: headers['content-encoding'] ?? 'identity',
            afterList,
          };
        })(),
      );
    });
    const start = performance.now();
    await page.goto(`${deskUrl}${LIST_ROUTE}`);
    await page.locator(ROW).first().waitFor({ state: 'visible', timeout: 30_000 });
    const wallMs = performance.now() - start;
    listSeen = true;
    // Responses that finished before the row but whose event is still queued count as before it.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    const inPageMs = await page.evaluate(() => (window as { __BENCH_LIST_MS__?: number }).__BENCH_LIST_MS__!);
    // The prewarm goes on after the list (the other core services' remotes); its downloads count too.
    await page.waitForFunction(() => (window as { __DESK_BOOT__?: unknown }).__DESK_BOOT__ !== undefined);
    await page.waitForLoadState('networkidle');
    return { wallMs, inPageMs, files: await Promise.all(files), acceptEncoding: sentEncoding };
  } finally {
    await context.close();
  }
}

/** One boot of the Desk home page in a fresh context, each core service's prewarm requests held `delayMs`. */
async function boot(browser: Browser, session: Session, deskUrl: string, delayMs: number) {
  const context = await signedInContext(browser, session);
  const hits = Object.fromEntries(CORE_SERVICES.map((s) => [s, 0]));
  try {
    await context.route(
      (url) => PER_SERVICE.test(url.pathname),
      async (route) => {
        const [, meta, remote] = PER_SERVICE.exec(new URL(route.request().url()).pathname)!;
        const service = (meta ?? remote)!;
        hits[service] = (hits[service] ?? 0) + 1;
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
        await route.continue();
      },
    );
    const page = await context.newPage();
    await page.goto(deskUrl);
    await page.waitForFunction(() => (window as { __DESK_BOOT__?: unknown }).__DESK_BOOT__ !== undefined);
    const result = await page.evaluate(
      () => (window as { __DESK_BOOT__?: { prewarmMs: number; failed: string[] } }).__DESK_BOOT__!,
    );
    return { ...result, hits };
  } finally {
    await context.close();
  }
}

async function measureList(browser: Browser, server: DeskServer) {
  const session = await signIn(browser, server.origin, SEED_ITEMS);
  await visitList(browser, session, server.deskUrl); // warms the server (JIT, database pages), not counted
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await visitList(browser, session, server.deskUrl));
  const beforeRow = (files: JsFile[]) =>
    files.filter((f) => !f.afterList).reduce((sum, f) => sum + f.wire, 0);
  const totals = runs.map((r) => beforeRow(r.files));
  // The same list for a client that accepts only gzip (the budget holds in both encodings).
  const gzipOnly = await visitList(browser, session, server.deskUrl, 'gzip');
  return {
    gzip: {
      files: gzipOnly.files,
      total: beforeRow(gzipOnly.files),
      acceptEncoding: gzipOnly.acceptEncoding,
    },
    files: runs[0]!.files,
    acceptEncoding: runs[0]!.acceptEncoding,
    wireTotals: totals,
    wallMs: median(runs.map((r) => r.wallMs)),
    inPageMs: median(runs.map((r) => r.inPageMs)),
  };
}

async function measurePrewarm(browser: Browser, server: DeskServer) {
  const session = await signIn(browser, server.origin, 0);
  await boot(browser, session, server.deskUrl, 0);
  const plain: number[] = [];
  const delayed: number[] = [];
  let sample: Awaited<ReturnType<typeof boot>> | undefined;
  // Alternating, so a burst of load from elsewhere on the machine hits both alike.
  for (let i = 0; i < RUNS; i++) {
    plain.push((await boot(browser, session, server.deskUrl, 0)).prewarmMs);
    sample = await boot(browser, session, server.deskUrl, DELAY_MS);
    delayed.push(sample.prewarmMs);
  }
  const failedReal = sample!.failed.filter((s) => s === 'crm' || s === 'stock');
  if (failedReal.length > 0) throw new Error(`the prewarm failed for ${failedReal.join(', ')}`);
  return { plain: median(plain), delayed: median(delayed), sample: sample! };
}

function printFiles(files: JsFile[]): void {
  for (const f of [...files].sort((a, b) => Number(a.afterList) - Number(b.afterList) || b.wire - a.wire)) {
    const note = f.afterList ? '  (after the first row: not counted)' : '';
    console.log(
      `  ${kb(f.wire).padStart(9)} ${f.encoding.padEnd(8)} ${kb(f.raw).padStart(9)} raw  ${f.path}${note}`,
    );
  }
}

async function main(): Promise<void> {
  const stale = ensureProductionBuild();
  if (stale.length > 0) {
    console.log(
      `note: the build of ${stale.join(', ')} is older than its sources; run node scripts/build.js to measure the current code`,
    );
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'desk-bench-shell-'));
  let server: DeskServer | undefined;
  let browser: Browser | undefined;
  let cleaning: Promise<void> | undefined;
  // Once only: a signal and the run's own `finally` may both ask for it.
  const cleanUp = () =>
    (cleaning ??= (async () => {
      try {
        await browser?.close();
      } finally {
        try {
          await server?.stop();
        } finally {
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    // The signal handlers above stop the server and remove the data directory before exiting; Playwright's
    // own would exit as soon as the browser is closed.
    browser = await launchChromium({ handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });

    server = await startDeskServer({ dataDir });
    const list = await measureList(browser, server);
    await server.stop();

    // The same data directory, now with three installed apps, all of them core services.
    server = await startDeskServer({
      dataDir,
      env: { PLATFORM_APPS: CORE_SERVICES.join(','), PLATFORM_CORE_SERVICES: CORE_SERVICES.join(',') },
    });
    const prewarm = await measurePrewarm(browser, server);

    const bytes = median(list.wireTotals);
    const before = list.files.filter((f) => !f.afterList);
    console.log(
      `JavaScript received for ${LIST_ROUTE} (signed in, empty cache; Chromium sent ` +
        `Accept-Encoding: ${list.acceptEncoding || '(none)'}), body bytes on the wire:`,
    );
    printFiles(list.files);
    console.log(
      `  ${before.length} files before the first row, ${kb(bytes)} received; ` +
        `totals of the ${RUNS} runs: ${[...new Set(list.wireTotals.map(kb))].join(', ')}`,
    );
    console.log(
      `the same list with Accept-Encoding: ${list.gzip.acceptEncoding || '(none)'} (a client without brotli): ` +
        `${kb(list.gzip.total)} received before the first row`,
    );
    printFiles(list.gzip.files);
    const counted = budgetedFirstScreen();
    console.log(
      `  the build's budget check counts ${kb(counted.brotli)} brotli / ${kb(counted.gzip)} gzip ` +
        `(${counted.files.length} files: the shell's first screen + the ${counted.remote ?? 'no'} remote's entry and views)`,
    );

    const excess = prewarm.delayed - prewarm.plain;
    const real = CORE_SERVICES.filter((s) => (prewarm.sample.hits[s] ?? 0) > 0);
    const idle = CORE_SERVICES.filter((s) => !real.includes(s));
    console.log(
      `prewarm with core services ${CORE_SERVICES.join(', ')}; prewarm requests held ${DELAY_MS} ms per service:`,
    );
    for (const s of CORE_SERVICES) console.log(`  ${s.padEnd(8)} ${prewarm.sample.hits[s]} request(s) held`);
    if (idle.length > 0) {
      console.log(
        `  ${idle.join(', ')}: no request of its own was made, so nothing to delay; ` +
          `failed at boot: ${prewarm.sample.failed.join(', ') || 'none'}. The delay applies to ${real.length} real services.`,
      );
    }

    console.log('\nsummary');
    console.log(
      `  JS to first row   ${kb(bytes).padStart(9)} received / budget ${kb(FIRST_SCREEN_BUDGET_BROTLI)} = ` +
        `${(bytes / FIRST_SCREEN_BUDGET_BROTLI).toFixed(2)}x (encoded bodies, Accept-Encoding: ${list.acceptEncoding})`,
    );
    console.log(
      `  JS, gzip only     ${kb(list.gzip.total).padStart(9)} received / budget ${kb(FIRST_SCREEN_BUDGET_GZIP)} = ` +
        `${(list.gzip.total / FIRST_SCREEN_BUDGET_GZIP).toFixed(2)}x (Accept-Encoding: ${list.gzip.acceptEncoding})`,
    );
    console.log(
      `  time to list      ${ms(list.inPageMs).padStart(9)} navigation -> first row (in page), ` +
        `${ms(list.wallMs)} goto -> visible row (Playwright); median of ${RUNS} fresh contexts, signed in ` +
        'beforehand (session cookie and CSRF token preset, the login not counted)',
    );
    console.log(
      `  prewarm           ${ms(prewarm.plain).padStart(9)} undelayed, ${ms(prewarm.delayed)} delayed; median of ${RUNS}`,
    );
    console.log(
      `  parallel prewarm  (delayed - undelayed) / ${DELAY_MS} ms = ${(excess / DELAY_MS).toFixed(2)}x ` +
        `(parallel 1x, sequential ${real.length}x over the ${real.length} delayed services; below 1x when ` +
        'the wait overlaps work the boot does anyway)',
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanUp();
  }
}

await main();
