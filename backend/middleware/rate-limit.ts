import type { MiddlewareHandler } from 'hono';
import { JOSE_CONTENT_TYPE } from '../../src/protocol';
import { credentialHash, presentedCredential } from '../auth/credentials';
import type { AppEnv } from '../http/env';
import { errorResponse } from '../http/errors';
import { requestHeader } from '../http/node-request';
import { clientAddress } from './client-address';
import { type ChainStep, stepMiddleware } from './step';

/** Options of {@link rateLimit} (`[tool.platform.security.rate_limit]` and `server.trusted_proxies`). */
export interface RateLimitOptions {
  enabled: boolean;
  windowMs: number;
  /** Requests per window per principal (credential) or, without one, per client address. */
  max: number;
  trustedProxies: readonly string[];
  now?: () => number;
}

interface Window {
  count: number;
  resetAt: number;
}

/**
 * Fixed-window counters in this process. Counters of ended windows are dropped lazily. Each process
 * limits on its own: behind N gateways a client gets up to N times the limit.
 */
export class WindowCounter {
  readonly #windows = new Map<string, Window>();
  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Counts one hit and returns the window's count and when it resets. */
  hit(key: string): Window {
    const now = this.now();
    let w = this.#windows.get(key);
    if (!w || w.resetAt <= now) {
      if (this.#windows.size > 50_000) this.#prune(now);
      w = { count: 0, resetAt: now + this.windowMs };
      this.#windows.set(key, w);
    }
    w.count++;
    return w;
  }

  /** The current window of a key without counting. */
  peek(key: string): Window | undefined {
    const w = this.#windows.get(key);
    return w && w.resetAt > this.now() ? w : undefined;
  }

  #prune(now: number): void {
    for (const [key, w] of this.#windows) if (w.resetAt <= now) this.#windows.delete(key);
  }
}

function isJose(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith(JOSE_CONTENT_TYPE);
}

/**
 * RateLimitMiddleware (priority 10, docs/security.md#middleware-chain): drops abuse before any parsing or
 * decryption.
 *
 * Each request counts against its principal's bucket when it presents a credential (a hash of it, also set
 * as `credentialHash` for the later middleware), else against its client address. A client that keeps
 * failing (a 400 on an `application/jose` body, i.e. a failed decryption, or a 401) is also counted in a
 * per-address failure bucket, which throttles it even when every request carries a fresh fake credential.
 * Over the limit: 429 `rate_limited` with `Retry-After` (seconds). Synchronous, before and after the handler.
 */
export function rateLimitStep(options: RateLimitOptions): ChainStep {
  const now = options.now ?? Date.now;
  // Principals and addresses in buckets of their own, so a key needs no prefix (no string built per request).
  const principals = new WindowCounter(options.windowMs, now);
  const addresses = new WindowCounter(options.windowMs, now);
  const failures = new WindowCounter(options.windowMs, now);
  const trusted = new Set(options.trustedProxies);
  const step: ChainStep = {
    name: 'rateLimit',
    enter(c) {
      const credential = presentedCredential(c);
      const hash = credential ? credentialHash(c, credential) : undefined;
      if (hash) c.set('credentialHash', hash);
      if (!options.enabled) return undefined;
      const address = clientAddress(c, trusted);
      const failed = failures.peek(address);
      const window =
        failed && failed.count >= options.max ? failed : hash ? principals.hit(hash) : addresses.hit(address);
      if (window === failed || window.count > options.max) {
        const seconds = Math.max(1, Math.ceil((window.resetAt - now()) / 1000));
        c.header('Retry-After', String(seconds));
        return errorResponse(c, 429, 'rate_limited', `Too many requests; retry in ${seconds} s.`);
      }
      return undefined;
    },
  };
  if (options.enabled) {
    step.leave = (c) => {
      const status = c.res.status;
      if (status === 401 || (status === 400 && isJose(requestHeader(c, 'content-type')))) {
        failures.hit(clientAddress(c, trusted));
      }
    };
  }
  return step;
}

/** {@link rateLimitStep} as a Hono middleware of its own. */
export const rateLimit = (options: RateLimitOptions): MiddlewareHandler<AppEnv> =>
  stepMiddleware(rateLimitStep(options));
