import type { Context } from 'hono';
import { requestHeader } from '../http/node-request';

/** The socket address @hono/node-server exposes as `c.env.incoming` (absent under `app.fetch`). */
interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
  server?: NodeBindings;
}

/** Used when the request did not come through a socket (`app.fetch` in tests, MSW handlers). */
export const UNKNOWN_CLIENT = 'unknown';

function normalize(address: string): string {
  const trimmed = address.trim();
  return trimmed.startsWith('::ffff:') ? trimmed.slice(7) : trimmed;
}

/** The peer address of the TCP connection, from @hono/node-server's bindings; `unknown` without a socket. */
export function socketAddress(c: Context): string {
  const env = c.env as NodeBindings | undefined;
  const bindings = env?.server ?? env;
  const address = bindings?.incoming?.socket?.remoteAddress;
  return address ? normalize(address) : UNKNOWN_CLIENT;
}

/**
 * The client address a request is limited by. `X-Forwarded-For` is believed only when the connection comes
 * from a configured trusted proxy, and then read right to left, skipping further trusted proxies, so a client
 * cannot pick its own address by sending the header (docs/security.md#client-address).
 */
export function clientAddress(c: Context, trustedProxies: ReadonlySet<string>): string {
  const peer = socketAddress(c);
  if (!trustedProxies.has(peer)) return peer;
  const forwarded = (requestHeader(c, 'x-forwarded-for') ?? '').split(',').map(normalize).filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--) {
    if (!trustedProxies.has(forwarded[i]!)) return forwarded[i]!;
  }
  return peer;
}
