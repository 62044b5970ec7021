import type { Context } from 'hono';
import type { PlatformConfig } from '../config/schema';
import { socketAddress } from '../middleware/client-address';

/**
 * True when the browser reached this server over HTTPS, so cookies must carry `Secure`: `server.public_url`
 * is https, the request itself is, or the connection comes from a trusted proxy (`security.trusted_proxies`)
 * whose `X-Forwarded-Proto` says https. A client's own `X-Forwarded-Proto` is not believed.
 */
export function isSecureRequest(c: Context, config: PlatformConfig): boolean {
  if (config.server.public_url?.toLowerCase().startsWith('https:')) return true;
  if (new URL(c.req.url).protocol === 'https:') return true;
  if (!config.security.trusted_proxies.includes(socketAddress(c))) return false;
  const proto = (c.req.header('x-forwarded-proto') ?? '').split(',')[0]!.trim().toLowerCase();
  return proto === 'https';
}
