import type { MiddlewareHandler } from 'hono';
import type { PlatformConfig } from '../config/schema';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { repeatsField } from '../http/node-request';
import { type ChainStep, stepMiddleware } from './step';

/** Host names every server answers to: a browser on the same machine cannot be DNS-rebound to them. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/** The allowed hosts: bare names (any port) and `name:port` pairs (that port only), lower-cased. */
export interface AllowedHosts {
  names: ReadonlySet<string>;
  hostPorts: ReadonlySet<string>;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The hosts a server answers to (docs/security.md#host-check): the loopback names, the host of
 * `server.public_url`, the bind address when it is a specific one, and every `server.allowed_hosts` entry
 * (`name` allows any port, `name:port` that port only).
 */
export function allowedHosts(config: PlatformConfig): AllowedHosts {
  const names = new Set<string>(LOOPBACK_HOSTS);
  const hostPorts = new Set<string>();
  const publicHost = config.server.public_url ? hostOf(config.server.public_url) : undefined;
  if (publicHost) names.add(publicHost);
  const bind = config.server.host.toLowerCase();
  if (!['0.0.0.0', '::', '[::]'].includes(bind)) {
    names.add(bind.includes(':') && !bind.startsWith('[') ? `[${bind}]` : bind);
  }
  for (const entry of config.server.allowed_hosts) {
    const parsed = hostOf(`http://${entry}`);
    if (!parsed) continue;
    if (/:\d+$/.test(entry)) hostPorts.add(new URL(`http://${entry}`).host.toLowerCase());
    else names.add(parsed);
  }
  return { names, hostPorts };
}

/** True when a request URL's host (name and port) is one of the allowed hosts. */
export function isAllowedHost(url: URL, allowed: AllowedHosts): boolean {
  const name = url.hostname.toLowerCase();
  return allowed.names.has(name) || allowed.hostPorts.has(url.host.toLowerCase());
}

/** True when the request came over a network connection (@hono/node-server bindings), not `app.fetch`. */
function fromNetwork(env: unknown): boolean {
  const bindings = env as { incoming?: unknown; server?: { incoming?: unknown } } | undefined;
  return bindings?.incoming !== undefined || bindings?.server?.incoming !== undefined;
}

function invalidHost(): PlatformError {
  return new PlatformError('invalid_host', 'This server does not answer to that host name.', {
    status: 421,
    headers: { Connection: 'close' },
  });
}

/** 400 `invalid_host`: RFC 9112 section 3.2 requires a server to refuse a request with more than one Host. */
function repeatedHost(): PlatformError {
  return new PlatformError('invalid_host', 'The request carries more than one Host header.', {
    status: 400,
    headers: { Connection: 'close' },
  });
}

/**
 * HostCheckMiddleware (priority 5, first in docs/security.md#middleware-chain): a request whose `Host` is not
 * one of {@link allowedHosts} is 421 `invalid_host` (RFC 9110 section 15.5.20, Misdirected Request) before
 * anything else runs. A page on an attacker's domain that rebinds its name to this server's address then
 * cannot sign in or write, even with a matching `Origin`. Only requests that came over the network are
 * checked: the same app answering inside a browser (the offline mocks) or under `app.fetch` has no Host to
 * rebind. A request with more than one `Host` field is 400 `invalid_host` (RFC 9112 section 3.2), whichever
 * of them node:http kept. Synchronous.
 */
export function hostCheckStep(config: PlatformConfig): ChainStep {
  const allowed = allowedHosts(config);
  // The answer depends only on the URL's authority: remembered per authority (bounded), so a request does not
  // parse its URL again for it.
  const decided = new Map<string, boolean>();
  const isAllowed = (url: string): boolean => {
    const start = url.indexOf('//') + 2;
    const end = url.indexOf('/', start);
    const authority = end === -1 ? url.slice(start) : url.slice(start, end);
    let ok = decided.get(authority);
    if (ok === undefined) {
      ok = isAllowedHost(new URL(url), allowed);
      if (decided.size >= 256) decided.clear();
      decided.set(authority, ok);
    }
    return ok;
  };
  return {
    name: 'hostCheck',
    enter(c) {
      if (!fromNetwork(c.env)) return undefined;
      if (repeatsField(c, 'host')) throw repeatedHost();
      if (!isAllowed(c.req.url)) throw invalidHost();
      return undefined;
    },
  };
}

/** {@link hostCheckStep} as a Hono middleware of its own. */
export function hostCheck(config: PlatformConfig): MiddlewareHandler<AppEnv> {
  return stepMiddleware(hostCheckStep(config));
}
