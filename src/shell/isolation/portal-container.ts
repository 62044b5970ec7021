/**
 * Each remote's portal container (docs/mfe-teams.md#dialogs-popovers-and-toasts-of-a-remote): the element
 * its dialogs, popovers and toasts render in when they leave the view's own element. It carries the
 * service's remote-root mark, so the remote's confined stylesheet reaches what it renders there and no
 * further; it covers the viewport above the Desk, and takes pointer events only on its children (the
 * Desk's stylesheet gives them back), so an empty container never blocks a click.
 *
 * Its own small module: the screens that pass it to a remote's views import it without the style guard.
 */
import { REMOTE_ROOT_ATTRIBUTE } from './remote-root';

/** The attribute marking a portal container; its value is the service. */
export const PORTAL_ATTRIBUTE = 'data-desk-portal';

/**
 * The container's own layout, `!important` inline: a remote's `body`/`:root` rules apply to its root, and
 * the container is one, so they must not give it a background, an outline or another position.
 */
const LAYOUT: Readonly<Record<string, string>> = {
  position: 'fixed',
  inset: '0',
  'z-index': '2147483000',
  'pointer-events': 'none',
  display: 'block',
  margin: '0',
  padding: '0',
  border: 'none',
  outline: 'none',
  background: 'transparent',
  overflow: 'visible',
  transform: 'none',
  filter: 'none',
  opacity: '1',
};

/** The CSS selector of `service`'s portal container. */
function containerSelector(service: string): string {
  return `[${PORTAL_ATTRIBUTE}="${service.replace(/["\\]/g, '\\$&')}"]`;
}

/** True when `node` is a remote's portal container. */
export function isPortalContainer(node: Node | null | undefined): node is HTMLElement {
  return node instanceof Element && node.hasAttribute(PORTAL_ATTRIBUTE);
}

/**
 * `service`'s portal container in `doc`, created at the end of its body on first use and kept for the
 * page's life (empty, it costs nothing and blocks nothing).
 */
export function portalContainerOf(service: string, doc: Document = document): HTMLElement {
  const known = doc.body.querySelector<HTMLElement>(`:scope > ${containerSelector(service)}`);
  if (known) return known;
  const container = doc.createElement('div');
  container.setAttribute(PORTAL_ATTRIBUTE, service);
  container.setAttribute(REMOTE_ROOT_ATTRIBUTE, service);
  for (const [property, value] of Object.entries(LAYOUT)) {
    container.style.setProperty(property, value, 'important');
  }
  // The body's own method: the page's wrapped one would ask whose the container is.
  Node.prototype.appendChild.call(doc.body, container);
  return container;
}
