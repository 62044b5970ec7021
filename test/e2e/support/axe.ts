/**
 * Accessibility checks of a page with axe-core: its script is evaluated in the page (through the DevTools
 * protocol, which the Desk's Content-Security-Policy does not apply to, so the page's own policy stays as
 * served) and run on the whole document, shadow roots included. The WCAG 2.x A and AA rules, plus axe's
 * best practices.
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** One rule a page breaks: the rule, its impact, what it asks for, and the elements that break it. */
export interface AxeViolation {
  id: string;
  impact: string | null | undefined;
  help: string;
  /** CSS selectors of the offending elements, with axe's summary of what is wrong with the first. */
  targets: string[];
  summary: string | undefined;
}

/** The rule sets checked: WCAG 2.0 / 2.1 / 2.2, levels A and AA, and axe's best practices. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/**
 * Runs axe-core on `page` as it is now and returns the violations (none: an empty list). Injects axe-core
 * once per document; a navigation to a new document injects it again.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(axe.source);
  const results = await page.evaluate(
    (tags) =>
      (window as unknown as { axe: typeof axe }).axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      }),
    TAGS,
  );
  return results.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    targets: v.nodes.map((n) => n.target.join(' ')),
    summary: v.nodes[0]?.failureSummary,
  }));
}
