/**
 * A hint that a remote's entry will be needed soon: `<link rel="preload" as="script">` in the page's head,
 * so the browser may fetch `remoteEntry.js` in the background. A preload only fetches: nothing runs until
 * the remote is loaded for a screen (docs/sdk.md#remotes). Outside a browser (no `document`) it does nothing.
 */

/** The part of a DOM document the hint uses (the page's own `document` by default). */
export type HintDocument = Pick<Document, 'head' | 'createElement'>;

/**
 * Adds a preload link for the entry `url` unless the page already has one; with `integrity`, the link
 * carries it and `crossorigin="anonymous"`, as the script the runtime adds later does (the browser reuses
 * a preloaded response only when both match). `doc` is `null` outside a browser. Returns true when a link
 * was added.
 */
export function hintEntry(
  url: string,
  integrity?: string,
  doc: HintDocument | null = globalThis.document ?? null,
): boolean {
  if (!doc?.head) return false;
  for (const link of doc.head.querySelectorAll('link[rel="preload"]')) {
    if (link.getAttribute('href') === url) return false;
  }
  const link = doc.createElement('link');
  // Attributes, not properties: `href` stays exactly the entry URL the runtime's script uses.
  link.setAttribute('rel', 'preload');
  link.setAttribute('as', 'script');
  link.setAttribute('href', url);
  if (integrity) {
    link.setAttribute('integrity', integrity);
    link.setAttribute('crossorigin', 'anonymous');
  }
  doc.head.appendChild(link);
  return true;
}
