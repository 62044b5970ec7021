import { PERMISSIONS_PREFIX } from '../../src/protocol';

/** The gateway's own methods (`platform.auth.*`, sign-in and sign-out): answered here, never forwarded. */
const GATEWAY_METHOD_PREFIX = 'platform.';

/**
 * True for a path a MACROSERVICE gateway forwards to a service (backend/gateway/forward.ts): the data API,
 * a record's history, the CSV import, the permission rules, and RPC methods of an app
 * (`/api/method/<app>.<name>`). The gateway's own routes (sign-in, users, keys) are not forwarded. It must
 * name every prefix the forwarder routes: an `Idempotency-Key` on a path it leaves out is kept by the
 * gateway that took the request, not by the service, so a retry through another gateway runs again (an
 * import without `import_id` then creates its rows twice).
 */
export function isForwardedPath(path: string): boolean {
  if (path.startsWith('/api/resource/') || path.startsWith('/api/history/')) return true;
  if (path.startsWith('/api/import/')) return true;
  if (path === PERMISSIONS_PREFIX || path.startsWith(`${PERMISSIONS_PREFIX}/`)) return true;
  if (!path.startsWith('/api/method/')) return false;
  const method = path.slice('/api/method/'.length);
  return method.includes('.') && !method.startsWith(GATEWAY_METHOD_PREFIX);
}
