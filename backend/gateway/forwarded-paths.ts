import { PERMISSIONS_PREFIX } from '../../src/protocol';

/** The gateway's own methods (`platform.auth.*`, sign-in and sign-out): answered here, never forwarded. */
const GATEWAY_METHOD_PREFIX = 'platform.';

/**
 * True for a path a MACROSERVICE gateway forwards to a service (backend/gateway/forward.ts): the data API,
 * a record's history, the permission rules, and RPC methods of an app (`/api/method/<app>.<name>`). The
 * gateway's own routes (sign-in, users, keys) are not forwarded.
 */
export function isForwardedPath(path: string): boolean {
  if (path.startsWith('/api/resource/') || path.startsWith('/api/history/')) return true;
  if (path === PERMISSIONS_PREFIX || path.startsWith(`${PERMISSIONS_PREFIX}/`)) return true;
  if (!path.startsWith('/api/method/')) return false;
  const method = path.slice('/api/method/'.length);
  return method.includes('.') && !method.startsWith(GATEWAY_METHOD_PREFIX);
}
