/**
 * Keeps each remote's styles on its own views (docs/mfe-teams.md#styles-of-a-remote). A remote's bundle adds
 * `<style>` or `<link rel="stylesheet">` elements to the page (style-loader puts them in `document.head`, a
 * component may render one): left alone, their rules would apply to the whole Desk. The guard finds whose
 * they are, switches the original off (`media="not all"`, so the bundle keeps its reference and hot updates
 * still find it) and adds a copy confined to that remote's roots (`scopeCss`, loaded with the first remote
 * stylesheet: most remotes bring none).
 *
 * Whose a style is, in order: its `data-desk-remote="<service>"` attribute (a remote may set it, e.g. with
 * style-loader's `attributes` option); the remote root it was rendered inside; else the remote whose files
 * the inserting code came from (the call stack's script URLs, matched against the remotes' entries). A style
 * that belongs to no remote (the Desk's own) is left alone.
 */
import { redirectRemotePortals } from './portal-redirect';
import { REMOTE_ROOT_ATTRIBUTE } from './remote-root';
import { type RemoteUrlOwner, serviceInStack } from './remote-urls';

/** The attribute naming the remote a style belongs to. */
export const STYLE_OWNER_ATTRIBUTE = 'data-desk-remote';
/** The attribute of the confined copies the guard adds (its value is the service). */
export const SCOPED_STYLE_ATTRIBUTE = 'data-desk-scoped';

export type { RemoteUrlOwner } from './remote-urls';

type InsertMethod = 'appendChild' | 'insertBefore' | 'append' | 'prepend';
const INSERT_METHODS: readonly InsertMethod[] = ['appendChild', 'insertBefore', 'append', 'prepend'];

/**
 * Whether `node` is an element, by its node type rather than `instanceof Element`: the guard may watch a
 * document of another realm (an iframe's), and its observer may still deliver records while that realm's
 * window is being closed, when the global constructors are gone.
 */
function isElement(node: unknown): node is Element {
  return (node as Node | null)?.nodeType === 1;
}

function isStyleElement(node: unknown): node is HTMLStyleElement | HTMLLinkElement {
  if (!isElement(node)) return false;
  if (node.hasAttribute(SCOPED_STYLE_ATTRIBUTE)) return false;
  const tag = node.tagName;
  return tag === 'STYLE' || (tag === 'LINK' && /\bstylesheet\b/i.test(node.getAttribute('rel') ?? ''));
}

/** One captured style: the original (switched off) and its confined copy. */
interface Captured {
  service: string;
  copy: HTMLStyleElement;
  text: string;
}

/** Confines remotes' styles in one document; see the module comment. */
export class StyleGuard {
  readonly #doc: Document;
  readonly #owner: RemoteUrlOwner;
  readonly #captured = new Map<Element, Captured>();
  #observer: MutationObserver | undefined;

  readonly #stack: () => string;
  #scoper: Promise<typeof import('./scope-css')> | undefined;
  #filled: Promise<unknown> = Promise.resolve();

  /** `stack` gives the call stack of an insertion (a test may give its own). */
  constructor(owner: RemoteUrlOwner, doc: Document = document, stack = () => new Error().stack ?? '') {
    this.#owner = owner;
    this.#doc = doc;
    this.#stack = stack;
  }

  /** Starts watching the page (once); styles already captured stay confined. */
  start(): void {
    if (this.#observer) return;
    const { head, body } = this.#doc;
    for (const parent of [head, body]) this.#tagInsertions(parent);
    this.#observer = new MutationObserver((records) => this.#onMutations(records));
    const options = { childList: true, subtree: true, attributeFilter: ['media', 'href'] };
    // Text edits in place matter only for styles, which live in the head; the body's text changes all the time.
    this.#observer.observe(head, { ...options, characterData: true });
    this.#observer.observe(body, options);
    // Styles a remote added before the guard started (a remote rendered by other means).
    for (const node of this.#doc.querySelectorAll(
      `[${STYLE_OWNER_ATTRIBUTE}], [${REMOTE_ROOT_ATTRIBUTE}] style`,
    )) {
      this.#consider(node);
    }
  }

  /** The confined copies added for `service` (for tests and the developer details). */
  copiesOf(service: string): HTMLStyleElement[] {
    return [...this.#captured.values()].filter((c) => c.service === service).map((c) => c.copy);
  }

  /**
   * Wraps the page's head's and body's insertion methods so a style inserted by a remote's code is tagged
   * with its service, and switched off, before it ever applies: the call stack names the script.
   */
  #tagInsertions(parent: HTMLElement): void {
    for (const method of INSERT_METHODS) {
      const original = parent[method] as (...args: unknown[]) => unknown;
      const guard = this;
      Object.defineProperty(parent, method, {
        configurable: true,
        writable: true,
        value: function (this: HTMLElement, ...args: unknown[]) {
          for (const node of args) if (isStyleElement(node)) guard.#tag(node);
          return original.apply(this, args);
        },
      });
    }
  }

  #tag(node: HTMLStyleElement | HTMLLinkElement): void {
    if (node.hasAttribute(STYLE_OWNER_ATTRIBUTE)) {
      node.setAttribute('media', 'not all');
      return;
    }
    const service = serviceInStack(this.#stack(), this.#owner);
    if (service) {
      node.setAttribute(STYLE_OWNER_ATTRIBUTE, service);
      node.setAttribute('media', 'not all');
    }
  }

  #serviceOf(node: Element): string | undefined {
    return (
      node.getAttribute(STYLE_OWNER_ATTRIBUTE) ??
      node.parentElement?.closest(`[${REMOTE_ROOT_ATTRIBUTE}]`)?.getAttribute(REMOTE_ROOT_ATTRIBUTE) ??
      undefined
    );
  }

  #onMutations(records: MutationRecord[]): void {
    const touched = new Set<Element>();
    for (const record of records) {
      for (const node of record.removedNodes) {
        if (isElement(node)) this.#release(node);
      }
      for (const node of record.addedNodes) {
        if (isStyleElement(node)) touched.add(node);
        else if (isElement(node)) for (const inner of node.querySelectorAll('style')) touched.add(inner);
      }
      // A hot update rewrites a style's text or attributes in place.
      const target = isElement(record.target) ? record.target : record.target.parentElement;
      if (target && this.#captured.has(target)) touched.add(target);
    }
    for (const node of touched) this.#consider(node);
  }

  #consider(node: Element): void {
    if (!isStyleElement(node) || !node.isConnected) return;
    const service = this.#captured.get(node)?.service ?? this.#serviceOf(node);
    if (!service) return;
    if (node.getAttribute('media') !== 'not all') node.setAttribute('media', 'not all');
    if (node.tagName === 'STYLE') this.#confine(node, service, node.textContent ?? '');
    else void this.#confineLink(node as HTMLLinkElement, service);
  }

  async #confineLink(link: HTMLLinkElement, service: string): Promise<void> {
    try {
      const response = await fetch(link.href, { credentials: 'omit' });
      if (response.ok) this.#confine(link, service, await response.text());
    } catch {
      console.warn(`[desk] The stylesheet ${link.href} of ${service} could not be read; it stays off.`);
    }
  }

  #confine(node: Element, service: string, text: string): void {
    const known = this.#captured.get(node);
    if (known && known.text === text) return;
    const copy = known?.copy ?? this.#doc.createElement('style');
    copy.setAttribute(SCOPED_STYLE_ATTRIBUTE, service);
    // The head's own appendChild is wrapped; the copy needs no tagging.
    if (!copy.isConnected) Node.prototype.appendChild.call(this.#doc.head, copy);
    this.#captured.set(node, { service, copy, text });
    // The original is off already; its confined text follows once the scoping code has loaded.
    this.#scoper ??= import(/* webpackChunkName: "remote-styles" */ './scope-css');
    this.#filled = Promise.all([this.#filled, this.#scoper]).then(([, { scopeCss }]) => {
      if (this.#captured.get(node)?.text === text) copy.textContent = scopeCss(text, service);
    });
  }

  /** Settles once every captured stylesheet's confined copy has its text (for tests). */
  settled(): Promise<void> {
    return this.#filled.then(() => undefined);
  }

  /** A removed original takes its copy along (a hot update replacing a style, a remote unmounting one). */
  #release(node: Element): void {
    const nodes = [node, ...node.querySelectorAll('style, link')];
    for (const removed of nodes) {
      const captured = this.#captured.get(removed);
      if (!captured || removed.isConnected) continue;
      captured.copy.remove();
      this.#captured.delete(removed);
    }
  }
}

const guards = new WeakMap<Document, StyleGuard>();

/**
 * The page's guard, started on first use (the first remote the Desk loads), with the redirect of remotes'
 * body-level portals into their portal containers (`redirectRemotePortals`).
 */
export function ensureStyleGuard(
  owner: RemoteUrlOwner,
  doc: Document | undefined = globalThis.document,
): void {
  if (!doc?.head || !doc.body || guards.has(doc)) return;
  const guard = new StyleGuard(owner, doc);
  guards.set(doc, guard);
  guard.start();
  redirectRemotePortals(owner, doc);
}
