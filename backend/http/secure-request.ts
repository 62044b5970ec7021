import type { Context } from 'hono';
import { socketAddress } from '../middleware/client-address';
import { requestHeader } from './node-request';

/** What decides whether a request reached the server over HTTPS (`server.public_url`, `trusted_proxies`). */
export interface SecureRequestOptions {
  /** `server.public_url`: an https one makes every request secure. */
  publicUrl?: string;
  /** `server.trusted_proxies`: peers whose `X-Forwarded-Proto` is believed. */
  trustedProxies: readonly string[];
}

/**
 * True when the browser reached this server over HTTPS, so cookies must carry `Secure`: `server.public_url`
 * is https, the request itself is, or the connection comes from a trusted proxy (`server.trusted_proxies`)
 * whose `X-Forwarded-Proto` says https. A client's own `X-Forwarded-Proto` is not believed.
 */
export function isSecureRequest(c: Context, options: SecureRequestOptions): boolean {
  if (options.publicUrl?.toLowerCase().startsWith('https:')) return true;
  if (new URL(c.req.url).protocol === 'https:') return true;
  if (!options.trustedProxies.includes(socketAddress(c))) return false;
  const proto = (requestHeader(c, 'x-forwarded-proto') ?? '').split(',')[0]!.trim().toLowerCase();
  return proto === 'https';
}
