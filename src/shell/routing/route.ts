/**
 * The Desk's routes live in the URL hash (`/desk/#/app/crm.Customer/new`), so every screen is a deep link
 * the backend never has to know about: it serves one `index.html` at `/desk/` whatever the route.
 */

/** A screen of the Desk. */
export type DeskRoute =
  | { kind: 'home' }
  | { kind: 'users' }
  | { kind: 'list'; docType: string }
  | { kind: 'new'; docType: string }
  | { kind: 'edit'; docType: string; id: string };

/** Parses a `location.hash` (with or without the leading `#`); anything unknown is home. */
export function parseRoute(hash: string): DeskRoute {
  const path = hash.replace(/^#/, '').replace(/^\/+/, '');
  const [section, docType, id, ...rest] = path.split('/');
  if (section === 'users' && !docType) return { kind: 'users' };
  if (section !== 'app' || !docType || rest.length > 0) return { kind: 'home' };
  const decodedDocType = safeDecode(docType);
  if (id === undefined || id === '') return { kind: 'list', docType: decodedDocType };
  if (id === 'new') return { kind: 'new', docType: decodedDocType };
  return { kind: 'edit', docType: decodedDocType, id: safeDecode(id) };
}

/** Formats a route as a hash (`#/app/...`). */
export function formatRoute(route: DeskRoute): string {
  switch (route.kind) {
    case 'home':
      return '#/';
    case 'users':
      return '#/users';
    case 'list':
      return `#/app/${encodeURIComponent(route.docType)}`;
    case 'new':
      return `#/app/${encodeURIComponent(route.docType)}/new`;
    case 'edit':
      return `#/app/${encodeURIComponent(route.docType)}/${encodeURIComponent(route.id)}`;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
