/**
 * Lighthouse (mobile, its default: a mid-range phone on a slow 4G connection, simulated) against a real
 * `m serve` (MONOLITH, production build, a fresh data directory, a free port), signed in: the Desk's home
 * page (`#/`) and a DocType list with rows (`#/app/stock.Item`, SEED_ITEMS records). Prints, per page, the
 * performance score (median of RUNS) and the main metrics of that run: First Contentful Paint, Largest
 * Contentful Paint, Total Blocking Time, Cumulative Layout Shift; the target is a score of at least 0.95.
 *
 * Lighthouse drives the system Chromium (/usr/bin/chromium, or CHROME_PATH) through chrome-launcher, headless
 * and without the sandbox (the benchmarks run as root in a container). Each run audits a tab in the state of
 * one that signed in earlier: the session cookie of a login through the API, and its CSRF token in
 * sessionStorage, which is how the Desk knows it is signed in after a reload (src/sdk/http/csrf.ts). So
 * Lighthouse keeps the tab's storage (`disableStorageReset`), and the HTTP cache is emptied before each run
 * instead: every run is a first visit.
 *
 * LIGHTHOUSE_RUNS sets the number of runs per page; LIGHTHOUSE_OUT=<dir> writes the median run of each page
 * there: its last screen (`home.jpg`, to see that it was the signed-in page) and Lighthouse's report
 * (`home.report.json`, where the long tasks and layout shifts are named).
 *
 *   npm run bench lighthouse
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import puppeteer, { type Page } from 'puppeteer-core';
import { BENCH_ADMIN_PASSWORD, startDeskServer } from './support/desk-server';
import { ensureProductionBuild } from './support/production-build';

const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const SEED_ITEMS = 20;
const TARGET_SCORE = 0.95;
const PAGES = [
  { name: 'home', route: '#/' },
  { name: 'stock.Item list', route: '#/app/stock.Item' },
];
const METRICS = [
  ['FCP', 'first-contentful-paint', 'ms'],
  ['LCP', 'largest-contentful-paint', 'ms'],
  ['TBT', 'total-blocking-time', 'ms'],
  ['CLS', 'cumulative-layout-shift', ''],
] as const;

/** Where the SDK keeps a tab's CSRF token (src/sdk/http/csrf.ts). */
const CSRF_STORAGE_KEY = 'framework-m.csrf-token';

/** A signed-in session: its cookie (`name=value`) and the CSRF token the login answered. */
interface Session {
  cookie: string;
  csrfToken: string;
}

/** Signs in as Administrator and creates `seed` stock.Items. */
async function signIn(origin: string, seed: number): Promise<Session> {
  const login = await fetch(`${origin}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ usr: 'Administrator', pwd: BENCH_ADMIN_PASSWORD }),
  });
  if (!login.ok) throw new Error(`login answered ${login.status}: ${await login.text()}`);
  const { csrf_token } = (await login.json()) as { csrf_token: string };
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  for (let i = 1; i <= seed; i++) {
    const created = await fetch(`${origin}/api/resource/stock.Item`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf_token, origin },
      body: JSON.stringify({ item_code: `LH-${i}`, item_name: `Item ${i}`, quantity: i, price: i * 1.5 }),
    });
    if (created.status !== 201) {
      throw new Error(`creating stock.Item answered ${created.status}: ${await created.text()}`);
    }
  }
  return { cookie, csrfToken: csrf_token };
}

/** A tab of the browser at `port` in the state of one that signed in: the cookie, the token in sessionStorage. */
async function signedInTab(port: number, origin: string, session: Session): Promise<Page> {
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${port}` });
  const page = await browser.newPage();
  const [name, ...value] = session.cookie.split('=');
  await page.setCookie({ name: name!, value: value.join('='), url: origin });
  await page.evaluateOnNewDocument(
    (key, token) => sessionStorage.setItem(key, token),
    CSRF_STORAGE_KEY,
    session.csrfToken,
  );
  return page;
}

/** Asks the launched browser to close and waits up to 10 s for it to exit (the launcher kills it after). */
async function closeBrowser(chrome: chromeLauncher.LaunchedChrome): Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (chrome.process.exitCode !== null) resolve();
    chrome.process.once('exit', () => resolve());
  });
  try {
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
    await browser.close();
  } catch {
    // Already gone.
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
  clearTimeout(timer);
}

interface PageRun {
  score: number;
  metrics: Record<string, number>;
  /** The page as it was at the end of the run (JPEG), to see that it was the signed-in page. */
  finalScreenshot?: Buffer;
  /** Lighthouse's report (JSON). */
  report: string;
}

/** One Lighthouse run of `url` in `page`, from an empty HTTP cache. */
async function audit(url: string, page: Page): Promise<PageRun> {
  const cdp = await page.createCDPSession();
  await cdp.send('Network.clearBrowserCache');
  await cdp.detach();
  const result = await lighthouse(
    url,
    { output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: true },
    undefined,
    page,
  );
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { lhr } = result;
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
  const metrics = Object.fromEntries(
    METRICS.map(([short, id]) => [short, lhr.audits[id]?.numericValue ?? Number.NaN]),
  );
  const shot = (lhr.audits['final-screenshot']?.details as { data?: string } | undefined)?.data;
  return {
    score: lhr.categories.performance?.score ?? 0,
    metrics,
    report: JSON.stringify(lhr),
    ...(shot ? { finalScreenshot: Buffer.from(shot.replace(/^data:image\/\w+;base64,/, ''), 'base64') } : {}),
  };
}

const fmt = (short: string, v: number) => (short === 'CLS' ? v.toFixed(3) : `${v.toFixed(0)} ms`);

async function main(): Promise<void> {
  const stale = ensureProductionBuild();
  if (stale.length > 0) throw new Error(`still out of date after the build: ${stale.join(', ')}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-lighthouse-'));
  const server = await startDeskServer({ dataDir: join(dataDir, 'data') });
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'],
  });
  let failed = false;
  try {
    const session = await signIn(server.origin, SEED_ITEMS);
    const tab = await signedInTab(chrome.port, server.origin, session);
    console.log(`Lighthouse mobile, performance, median of ${RUNS} runs (target >= ${TARGET_SCORE}):`);
    for (const page of PAGES) {
      const runs: PageRun[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await audit(`${server.deskUrl}${page.route}`, tab));
      runs.sort((a, b) => a.score - b.score);
      const median = runs[Math.floor(runs.length / 2)]!;
      const metrics = METRICS.map(([short]) => `${short} ${fmt(short, median.metrics[short]!)}`).join(', ');
      console.log(
        `  ${page.name.padEnd(16)} score ${median.score.toFixed(2)} (runs ${runs.map((r) => r.score.toFixed(2)).join(' ')})  ${metrics}`,
      );
      if (median.score < TARGET_SCORE) failed = true;
      const dir = process.env.LIGHTHOUSE_OUT;
      if (dir) {
        mkdirSync(dir, { recursive: true });
        const base = join(dir, page.name.replace(/[^a-z0-9]+/gi, '-'));
        writeFileSync(`${base}.report.json`, median.report);
        if (median.finalScreenshot) writeFileSync(`${base}.jpg`, median.finalScreenshot);
      }
    }
  } finally {
    // Closed over the protocol first: Chromium then exits on its own and removes its temporary folder
    // (`/tmp/org.chromium.Chromium.*`), which the launcher's SIGKILL would leave behind.
    await closeBrowser(chrome);
    chrome.kill();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (failed) console.log(`  below ${TARGET_SCORE}: see the page's metrics above.`);
}

await main();
