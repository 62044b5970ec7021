/**
 * Style isolation, in Chromium (docs/mfe-teams.md#styles-of-a-remote): a remote whose stylesheet restyles
 * `h1`, `a`, `button`, `*`, the page root and the Desk's own tokens leaves the computed styles of the Desk
 * (sidebar links, header buttons, the page title, the body) and of another remote (crm's form) as they were
 * before it loaded, and is itself styled by its own rules, the dialog it renders with
 * `createPortal(..., document.body)` included (docs/mfe-teams.md#dialogs-popovers-and-toasts-of-a-remote).
 * The same rules inserted without the guard (by the test itself) do change the Desk, so the comparison can
 * see a leak.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from './support/browser';
import {
  buildRemoteAppFolder,
  remoteAppParent,
  type ServedApps,
  serveApps,
  signInAsAdministrator,
  stylesConfined,
} from './support/remote-app-folder';

const HOSTILE_CSS = `h1, h2 { color: rgb(255, 0, 255); font-family: monospace; }
a { color: rgb(0, 255, 0); text-decoration: line-through; }
button { color: rgb(0, 255, 0); background: rgb(0, 255, 0); border-radius: 0; }
* { outline: 3px solid rgb(255, 0, 0); letter-spacing: 3px; }
:root { --desk-accent: rgb(0, 255, 0); }
body { background: rgb(0, 0, 0); }
`;

/** The remote's own look of the dialog it portals into the page's body. */
const DIALOG_CSS = `.hostile-dialog { position: fixed; top: 120px; left: 400px; padding: 24px; background: rgb(255, 255, 0); }
`;

/** The hostile form gains a dialog rendered into `document.body`, and shows the portal container it was given. */
const DIALOG_EDITS: [string, string, string][] = [
  [
    'src/GadgetForm.tsx',
    "import { type FormEvent, useState } from 'react';",
    "import { type FormEvent, useState } from 'react';\nimport { createPortal } from 'react-dom';",
  ],
  [
    'src/GadgetForm.tsx',
    '  onCancel(): void;\n}',
    '  onCancel(): void;\n  portalContainer?: HTMLElement;\n}',
  ],
  [
    'src/GadgetForm.tsx',
    '{ docType, schema, onSaved, onCancel }',
    '{ docType, schema, onSaved, onCancel, portalContainer }',
  ],
  [
    'src/GadgetForm.tsx',
    '  const [error, setError] = useState<string | undefined>();',
    '  const [error, setError] = useState<string | undefined>();\n  const [dialog, setDialog] = useState(false);',
  ],
  [
    'src/GadgetForm.tsx',
    '      <button type="button" onClick={onCancel}>',
    `      <output data-portal={portalContainer?.getAttribute('data-desk-portal') ?? 'none'} />
      <button type="button" onClick={() => setDialog(true)}>Open dialog</button>
      {dialog
        ? createPortal(
            <div role="dialog" aria-label="Hostile dialog" className="hostile-dialog">
              <h2>Hostile dialog</h2>
              <button type="button" onClick={() => setDialog(false)}>Close dialog</button>
            </div>,
            document.body,
          )
        : null}
      <button type="button" onClick={onCancel}>`,
  ],
];

/** Computed style properties compared before and after. */
const PROPS = [
  'color',
  'background-color',
  'font-family',
  'outline-style',
  'letter-spacing',
  'text-decoration-line',
  'border-radius',
];

/** Selectors of the Desk's own elements whose look must not change. */
const DESK = ['body', '.desk-sidebar a', 'header button', 'main h1'];
/** crm's own form, another remote. */
const CRM = [
  '[data-desk-remote-root="crm"] button',
  '[data-desk-remote-root="crm"] h2',
  '[data-desk-remote-root="crm"] input',
];

let parent: ReturnType<typeof remoteAppParent>;
let server: ServedApps;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  parent = remoteAppParent();
  // The hostile rules come last in the remote's stylesheet, after its own.
  const hostile = buildRemoteAppFolder(parent.dir, 'hostile', [
    [
      'src/remote.css',
      'color: var(--desk-accent-text);\n}',
      `color: var(--desk-accent-text);\n}\n${DIALOG_CSS}${HOSTILE_CSS}`,
    ],
    ...DIALOG_EDITS,
  ]);
  server = await serveApps(['crm', hostile], 'hostile.Gadget');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signInAsAdministrator(page, server.deskUrl);
  // Bundling the remotes and a first build of the Desk take minutes on a busy two-core machine.
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  parent?.dispose();
});

/** The computed {@link PROPS} of the first element of each selector (null when absent). */
function stylesOf(selectors: string[]) {
  return page.evaluate(
    ({ selectors, props }) =>
      Object.fromEntries(
        selectors.map((selector) => {
          const element = document.querySelector(selector);
          if (!element) return [selector, null];
          const style = getComputedStyle(element);
          return [selector, Object.fromEntries(props.map((p) => [p, style.getPropertyValue(p)]))];
        }),
      ),
    { selectors, props: PROPS },
  );
}

describe('a remote with a hostile stylesheet', () => {
  it('leaves the Desk and another remote as they were, and is styled by its own rules', async () => {
    await page.goto(`${server.deskUrl}#/app/crm.Customer/new`);
    await page.locator('[data-desk-remote-root="crm"] button').first().waitFor();
    const deskBefore = await stylesOf(DESK);
    const crmBefore = await stylesOf(CRM);
    for (const selector of [...DESK, ...CRM])
      expect({ selector, found: (deskBefore[selector] ?? crmBefore[selector]) !== null }).toEqual({
        selector,
        found: true,
      });

    // The hostile remote loads (its views module adds its <style> to document.head).
    await page.goto(`${server.deskUrl}#/app/hostile.Gadget/new`);
    await page.getByText('hostile form from its own bundler config').waitFor();
    await stylesConfined(page, 'hostile');
    await screenshot(page, 'style-isolation-hostile-form');
    const own = await stylesOf([
      '[data-desk-remote-root="hostile"] h2',
      '[data-desk-remote-root="hostile"] button',
      '[data-desk-remote-root="hostile"] form',
    ]);
    expect(own['[data-desk-remote-root="hostile"] h2']).toMatchObject({
      color: 'rgb(255, 0, 255)',
      'font-family': 'monospace',
    });
    expect(own['[data-desk-remote-root="hostile"] button']).toMatchObject({
      color: 'rgb(0, 255, 0)',
      'background-color': 'rgb(0, 255, 0)',
      'outline-style': 'solid',
      'letter-spacing': '3px',
    });
    // Its `:root` tokens reach its own root only.
    expect(
      await page.evaluate(() =>
        getComputedStyle(document.querySelector('[data-desk-remote-root="hostile"] form')!)
          .getPropertyValue('--desk-accent')
          .trim(),
      ),
    ).toBe('rgb(0, 255, 0)');
    expect(
      await page.evaluate(() =>
        getComputedStyle(document.documentElement).getPropertyValue('--desk-accent').trim(),
      ),
    ).not.toBe('rgb(0, 255, 0)');
    // Its stylesheet is switched off where it put it, and confined in a copy.
    expect(await page.locator('head style[data-desk-remote="hostile"]').getAttribute('media')).toBe(
      'not all',
    );
    expect(await page.locator('head style[data-desk-scoped="hostile"]').count()).toBe(1);
    expect(await stylesOf(DESK)).toEqual(deskBefore);

    // Its dialog, portalled into the body, lands in its portal container: styled by its rules, the Desk not.
    expect(await page.locator('[data-desk-remote-root="hostile"] output').getAttribute('data-portal')).toBe(
      'hostile',
    );
    await page.getByRole('button', { name: 'Open dialog' }).click();
    const dialog = page.getByRole('dialog', { name: 'Hostile dialog' });
    await dialog.waitFor();
    expect(
      await dialog.evaluate((el) => el.parentElement?.getAttribute('data-desk-portal') ?? 'elsewhere'),
    ).toBe('hostile');
    await screenshot(page, 'style-isolation-portal-dialog');
    const portal = '[data-desk-portal="hostile"]';
    const inDialog = await stylesOf([`${portal} .hostile-dialog`, `${portal} h2`, `${portal} button`]);
    expect(inDialog[`${portal} .hostile-dialog`]).toMatchObject({ 'background-color': 'rgb(255, 255, 0)' });
    expect(inDialog[`${portal} h2`]).toMatchObject({ color: 'rgb(255, 0, 255)', 'font-family': 'monospace' });
    expect(inDialog[`${portal} button`]).toMatchObject({
      'background-color': 'rgb(0, 255, 0)',
      'outline-style': 'solid',
    });
    // The container itself keeps no background or outline from the remote's `body` and `*` rules.
    expect(await stylesOf([portal])).toMatchObject({
      [portal]: { 'background-color': 'rgba(0, 0, 0, 0)', 'outline-style': 'none' },
    });
    expect(await stylesOf(DESK)).toEqual(deskBefore);
    // Its button takes the click through the container, and closing takes the dialog out of the page.
    await page.getByRole('button', { name: 'Close dialog' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.locator(`${portal} > *`).count()).toBe(0);

    await page.goto(`${server.deskUrl}#/app/crm.Customer/new`);
    await page.locator('[data-desk-remote-root="crm"] button').first().waitFor();
    expect(await stylesOf(DESK)).toEqual(deskBefore);
    expect(await stylesOf(CRM)).toEqual(crmBefore);

    await page.goto(server.deskUrl);
    await page
      .getByText(/\d+ hostiles?|Counting hostile/)
      .first()
      .waitFor();
    await screenshot(page, 'style-isolation-home');

    // Control: the same rules inserted by the page itself (not a remote's file) do change the Desk.
    await page.goto(`${server.deskUrl}#/app/crm.Customer/new`);
    await page.locator('[data-desk-remote-root="crm"] button').first().waitFor();
    await page.evaluate((css) => {
      const style = document.createElement('style');
      style.textContent = css;
      document.head.appendChild(style);
    }, HOSTILE_CSS);
    expect(await stylesOf(DESK)).not.toEqual(deskBefore);
  });
});
