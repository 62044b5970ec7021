/**
 * Session sign-in against a server shedding sign-ins: a 503 or 429 with `Retry-After` is waited out (the
 * pause the server asked for, recorded rather than slept) and the sign-in sent again, up to LOGIN_RETRIES
 * times; without `Retry-After`, or past the retries, the login fails with `login_failed`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LOGIN_RETRIES, retryAfterMs, sessionAuth } from '../../../src/benchmarks/auth/session-auth';
import { HttpClient } from '../../../src/benchmarks/engine/http-client';
import { jsonEncoder } from '../../../src/benchmarks/target/encryptor';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A login endpoint answering `refusals` times with `status` (and `retryAfter` when given), then 200. */
async function loginServer(refusals: number, status: number, retryAfter?: string) {
  let received = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      if (received <= refusals) {
        res.writeHead(status, {
          'content-type': 'application/json',
          ...(retryAfter ? { 'retry-after': retryAfter } : {}),
        });
        res.end(JSON.stringify({ error: { code: 'login_busy', message: 'busy' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'sid=s1; Path=/; HttpOnly' });
      res.end(JSON.stringify({ message: 'Logged In', csrf_token: 'c1' }));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/api/method/login`;
  const waits: number[] = [];
  const auth = sessionAuth({
    http: new HttpClient({ connections: 1, timeoutMs: 10_000 }),
    encoder: jsonEncoder,
    loginUrl: url,
    username: 'u',
    password: 'p',
    wait: async (ms) => {
      waits.push(ms);
    },
  });
  return { auth, waits, received: () => received };
}

describe('session sign-in honours Retry-After', () => {
  it('waits as long as a 503 asks and signs in again', async () => {
    const s = await loginServer(2, 503, '2');
    await s.auth.login();
    expect(s.received()).toBe(3);
    expect(s.waits).toEqual([2000, 2000]);
    expect(s.auth.headers('POST')).toEqual({ cookie: 'sid=s1', 'x-csrf-token': 'c1' });
  });

  it('waits out a 429 from throttling the same way', async () => {
    const s = await loginServer(1, 429, '1');
    await s.auth.login();
    expect(s.received()).toBe(2);
    expect(s.waits).toEqual([1000]);
  });

  it('fails at once on a 503 without Retry-After', async () => {
    const s = await loginServer(1, 503);
    await expect(s.auth.login()).rejects.toMatchObject({ code: 'login_failed' });
    expect(s.received()).toBe(1);
    expect(s.waits).toEqual([]);
  });

  it(`gives up after ${LOGIN_RETRIES} retries`, async () => {
    const s = await loginServer(100, 503, '1');
    await expect(s.auth.login()).rejects.toMatchObject({ code: 'login_failed' });
    expect(s.received()).toBe(1 + LOGIN_RETRIES);
    expect(s.waits).toHaveLength(LOGIN_RETRIES);
  });

  it('reads delay-seconds and HTTP-dates, and refuses what is malformed or too long', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Thu, 26 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Thu, 26 Nov 2026 09:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    // The platform's sign-in asks for at most 60 s; longer is treated as a server that has failed.
    expect(retryAfterMs('60', now)).toBe(60_000);
    expect(retryAfterMs('61', now)).toBeUndefined();
    expect(retryAfterMs('3600', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
