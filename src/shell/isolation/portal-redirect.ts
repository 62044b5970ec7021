/**
 * Moves a remote's body-level portals into its portal container (docs/mfe-teams.md#dialogs-popovers-and-toasts-of-a-remote),
 * so a dialog a remote renders with `createPortal(..., document.body)`, or a library that defaults to the
 * body, is styled by the remote's confined stylesheet. Only the page's `<body>` is touched, and only its
 * insertion and removal methods: an element inserted there is the remote's when
 *
 * - React rendered it (`createPortal`): its component tree leads up to a remote root. React DOM keeps each
 *   element's place in that tree on the element (the `__reactFiber$` property, the same one React's own
 *   developer tools read); React's portals insert with the container's `appendChild`/`insertBefore`.
 * - Else the code inserting it came from the remote's files (the call stack's script URLs, as the style
 *   guard tells a remote's stylesheets).
 *
 * Anything else, the Desk's own portals included, goes to the body as before. Whoever inserted an element
 * later removes it or inserts before it through the body: those calls follow it into the container.
 */
import { isPortalContainer, portalContainerOf } from './portal-container';
import { REMOTE_ROOT_ATTRIBUTE } from './remote-root';
import { type RemoteUrlOwner, serviceInStack } from './remote-urls';

const FIBER_KEY = '__reactFiber$';

/** The part of a React fiber read here. */
interface FiberLike {
  return: FiberLike | null;
  stateNode: unknown;
}

/** The fiber React DOM keeps on `node`, if React rendered it. */
function fiberOf(node: Node): FiberLike | undefined {
  for (const key of Object.keys(node)) {
    if (key.startsWith(FIBER_KEY)) return (node as unknown as Record<string, FiberLike>)[key];
  }
  return undefined;
}

/**
 * Whose `node` is: the service of the remote root its React tree leads up to (null: React rendered it
 * outside any remote), or undefined when React did not render it.
 */
export function reactOwnerOf(node: Node): string | null | undefined {
  const own = fiberOf(node);
  if (!own) return undefined;
  for (let fiber = own.return; fiber; fiber = fiber.return) {
    const host = fiber.stateNode;
    if (host instanceof Element && host.hasAttribute(REMOTE_ROOT_ATTRIBUTE)) {
      return host.getAttribute(REMOTE_ROOT_ATTRIBUTE);
    }
  }
  return null;
}

/** Redirects one document's body-level portals; see the module comment. */
export class PortalRedirect {
  readonly #doc: Document;
  readonly #owner: RemoteUrlOwner;
  readonly #stack: () => string;

  /** `stack` gives the call stack of an insertion (a test may give its own). */
  constructor(owner: RemoteUrlOwner, doc: Document = document, stack = () => new Error().stack ?? '') {
    this.#owner = owner;
    this.#doc = doc;
    this.#stack = stack;
  }

  /** The service whose container `node` belongs in, or undefined for the body. */
  serviceOf(node: unknown): string | undefined {
    if (!(node instanceof Element || node instanceof Text) || isPortalContainer(node)) return undefined;
    // Stylesheets are the style guard's: it switches them off where they are.
    if (node instanceof HTMLStyleElement || node instanceof HTMLLinkElement) return undefined;
    const rendered = reactOwnerOf(node);
    if (rendered !== undefined) return rendered ?? undefined;
    return serviceInStack(this.#stack(), this.#owner);
  }

  /** Wraps the body's `appendChild`, `insertBefore` and `removeChild` (once). */
  start(): void {
    const body = this.#doc.body;
    const append = body.appendChild;
    const insertBefore = body.insertBefore;
    const remove = body.removeChild;
    const redirect = this;
    const define = (name: string, value: unknown) =>
      Object.defineProperty(body, name, { configurable: true, writable: true, value });
    define('appendChild', function (this: HTMLElement, node: Node) {
      const service = redirect.serviceOf(node);
      if (!service) return append.call(this, node);
      return Node.prototype.appendChild.call(portalContainerOf(service, redirect.#doc), node);
    });
    define('insertBefore', function (this: HTMLElement, node: Node, before: Node | null) {
      // Before a node that was moved into a container: next to it, in that container.
      if (before && isPortalContainer(before.parentNode)) {
        return Node.prototype.insertBefore.call(before.parentNode, node, before);
      }
      const service = redirect.serviceOf(node);
      if (!service) return insertBefore.call(this, node, before);
      return Node.prototype.appendChild.call(portalContainerOf(service, redirect.#doc), node);
    });
    define('removeChild', function (this: HTMLElement, node: Node) {
      if (isPortalContainer(node.parentNode)) return Node.prototype.removeChild.call(node.parentNode, node);
      return remove.call(this, node);
    });
  }
}

const redirects = new WeakMap<Document, PortalRedirect>();

/** Starts redirecting `doc`'s body-level portals of remotes (once per document). */
export function redirectRemotePortals(
  owner: RemoteUrlOwner,
  doc: Document | undefined = globalThis.document,
): void {
  if (!doc?.body || redirects.has(doc)) return;
  const redirect = new PortalRedirect(owner, doc);
  redirects.set(doc, redirect);
  redirect.start();
}
