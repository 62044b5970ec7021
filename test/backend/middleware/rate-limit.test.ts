import nodeCrypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiKeyAuthorization } from '../../helpers/auth';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { errorOf, rawJwe } from '../security/jwe-support';

const LIMIT = 5;
let t: TestApp | undefined;
let server: ServerType | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  await t?.close();
  t = undefined;
});

async function start(config: Record<string, unknown> = {}): Promise<string> {
  t = await createTestApp({
    config: {
      'security.rate_limit.max_requests': LIMIT,
      'security.payload_encryption.mode': 'strict',
      ...config,
    },
  });
  const app = t.app;
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const randomJwe = () =>
  rawJwe({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: 'k', htm: 'POST', htu: '/api/resource/crm.Lead' }, [
    'QUJD'.repeat(64),
    'AAAAAAAAAAAAAAAA',
    'QUJD',
    'AAAAAAAAAAAAAAAAAAAAAA',
  ]);

describe('RateLimitMiddleware', () => {
  it('answers 429 with Retry-After past the limit, before any decryption', async () => {
    const base = await start();
    const decrypt = vi.spyOn(nodeCrypto, 'privateDecrypt');
    const kid = (await t!.ctx.security.keys.active()).kid;
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i <= LIMIT; i++) {
      last = await fetch(`${base}/api/resource/crm.Lead`, {
        method: 'POST',
        headers: { 'content-type': 'application/jose' },
        body: rawJwe(
          { alg: 'RSA-OAEP-256', enc: 'A256GCM', kid, htm: 'POST', htu: '/api/resource/crm.Lead' },
          [Buffer.alloc(256, i).toString('base64url'), 'AAAAAAAAAAAAAAAA', 'QUJD', 'AAAAAAAAAAAAAAAAAAAAAA'],
        ),
      });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, LIMIT).every((s) => s === 400)).toBe(true);
    expect(statuses[LIMIT]).toBe(429);
    expect((await errorOf(last!)).code).toBe('rate_limited');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    // One key unwrap (RSA-OAEP, on the event loop) per request under the limit, none for the refused one.
    expect(decrypt).toHaveBeenCalledTimes(LIMIT);
  });

  it('treats rotating X-Forwarded-For from an untrusted peer as one client', async () => {
    const base = await start();
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      const res = await fetch(`${base}/api/v1/security/config`, {
        headers: { 'x-forwarded-for': `203.0.113.${i}` },
      });
      statuses.push(res.status);
    }
    expect(statuses.at(-1)).toBe(429);
  });

  it('believes X-Forwarded-For from a configured trusted proxy', async () => {
    const base = await start({ 'server.trusted_proxies': ['127.0.0.1'] });
    for (let i = 0; i <= LIMIT * 2; i++) {
      const res = await fetch(`${base}/api/v1/security/config`, {
        headers: { 'x-forwarded-for': `203.0.113.${i}` },
      });
      expect(res.status).toBe(200);
    }
  });

  it('throttles a client sending random JWEs even when each carries a fresh fake credential', async () => {
    const base = await start();
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      const res = await fetch(`${base}/api/resource/crm.Lead`, {
        method: 'POST',
        headers: { 'content-type': 'application/jose', authorization: `token fake${i}:secret${i}` },
        body: randomJwe(),
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, LIMIT).every((s) => s === 400)).toBe(true);
    expect(statuses[LIMIT]).toBe(429);
  });

  it('never stores a 429 as an idempotent response', async () => {
    const base = await start({ 'security.payload_encryption.mode': 'disabled' });
    const authorization = await apiKeyAuthorization(t!.ctx);
    const post = (i: number) =>
      fetch(`${base}/api/resource/crm.Lead`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', 'idempotency-key': `rl-${i}` },
        body: JSON.stringify({ lead_name: `Limited ${i}` }),
      });
    for (let i = 0; i < LIMIT; i++) expect((await post(i)).status).toBeLessThan(300);
    const limited = await post(LIMIT);
    expect(limited.status).toBe(429);
    const { rows } = await t!.ctx.db.query('SELECT 1 FROM platform_idempotency');
    expect(rows).toHaveLength(LIMIT);
  });

  it('limits per principal: one caller’s exhausted budget does not block another', async () => {
    const base = await start();
    const alice = await apiKeyAuthorization(t!.ctx);
    const other = await apiKeyAuthorization(t!.ctx);
    const get = (authorization: string) =>
      fetch(`${base}/api/resource/crm.Lead`, { headers: { authorization } }).then((r) => r.status);
    for (let i = 0; i < LIMIT; i++) expect(await get(alice)).toBe(200);
    expect(await get(alice)).toBe(429);
    expect(await get(other)).toBe(200);
  });
});
