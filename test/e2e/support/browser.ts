/**
 * Chromium for the end-to-end tests: Debian's `/usr/bin/chromium` (or `PLATFORM_CHROMIUM_PATH`) driven by
 * playwright-core, with the launch flags that work as root in a container
 * (docs/development.md#end-to-end-tests).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type LaunchOptions, type Page } from 'playwright-core';

/** The Chromium binary: `PLATFORM_CHROMIUM_PATH` when set, else Debian's. */
export function chromiumPath(): string {
  const path = process.env.PLATFORM_CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `Chromium not found at ${path}: run "node scripts/ensure-system-deps.js" (installs chromium).`,
    );
  }
  return path;
}

/**
 * Launches headless Chromium with a fresh temporary profile; `options` adds launch options (e.g.
 * `handleSIGINT: false` for a caller that closes the browser itself on a signal).
 */
export function launchChromium(
  options: Omit<LaunchOptions, 'executablePath' | 'args'> = {},
): Promise<Browser> {
  return chromium.launch({
    ...options,
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // The omnibox's popup of each browser window is a WebUI page that Chromium prepares for every new page
      // and context, headless or not: about half of the CPU a new page costs (docs/development.md#what-the-run-costs).
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup',
    ],
  });
}

/** Where screenshots go (git-ignored), for a person to look at. */
export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '__screenshots__');

/** How long a screenshot waits for the page's loading indicators to go before it is taken anyway. */
const SETTLE_MS = 10_000;

/**
 * Saves a full-page screenshot named `<name>.png`, of the screen as a user sees it once it has loaded:
 * it first waits (up to SETTLE_MS, never failing) until no loading indicator (`.desk-state--loading`,
 * `aria-busy`) is in the page, since screens and remote widgets load with their route.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  await page
    .waitForFunction(() => !document.querySelector('.desk-state--loading, [aria-busy="true"]'), undefined, {
      timeout: SETTLE_MS,
    })
    .catch(() => undefined);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Waits until the Desk shows the record a form just saved: after a create the Desk replaces the form's route
 * with the record's (`#/app/<docType>/<name>`). A test that goes elsewhere before that would be overtaken by it.
 */
export async function savedRecordOpened(page: Page, docType: string): Promise<void> {
  await page.waitForFunction(
    (prefix) =>
      location.hash.startsWith(prefix) &&
      !/[/?]/.test(location.hash.slice(prefix.length)) &&
      location.hash !== `${prefix}new`,
    `#/app/${docType}/`,
  );
}
