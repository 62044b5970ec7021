/**
 * Sign-in under a storm, through the real app: password checks wait for one of the hash gate's slots; a
 * sign-in whose client has closed its connection while waiting is never hashed (the checks are counted);
 * a sign-in the queue could not serve within its longest wait answers 503 `login_busy` with `Retry-After` at once.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScryptPasswordHasher } from '../../../backend/auth/passwords';
import { type RunningServer, startServer } from '../../../backend/server';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let server: RunningServer;

beforeAll(async () => {
  t = await createTestApp();
  server = await startServer(t.app, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await server?.close();
  await t?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Counts the password checks and holds each one until `release()`: the gate's slots stay taken while the
 * test arranges the queue. A held check answers "wrong password" without computing scrypt.
 */
function holdPasswordChecks() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const checks = vi.spyOn(ScryptPasswordHasher.prototype, 'verify').mockImplementation(async () => {
    await released;
    return false;
  });
  return { checks, release };
}

/** Resolves once `condition()` holds, checking at every turn of the event loop (no time limit of its own). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

/** A sign-in over a real connection, as the app's public URL names the host; `abort()` closes it. */
function signIn(usr: string) {
  const body = JSON.stringify({ usr, pwd: 'wrong password' });
  const req = httpRequest(`${server.url}/api/method/login`, {
    method: 'POST',
    headers: {
      host: 'desk.test',
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  req.end(body);
  return { answered, abort: () => req.destroy() };
}

describe('sign-in under a storm', () => {
  it('never hashes a sign-in whose client closed the connection while it waited', async () => {
    const gate = t.ctx.security.hashGate;
    const startedBefore = gate.started;
    const { checks, release } = holdPasswordChecks();
    // Two sign-ins take the gate's two slots and are held there.
    const held = [signIn('storm-held-1'), signIn('storm-held-2')];
    await until(() => checks.mock.calls.length === 2);
    // Three more wait in the queue; their clients give up.
    const gone = [signIn('storm-gone-1'), signIn('storm-gone-2'), signIn('storm-gone-3')];
    for (const g of gone) g.answered.catch(() => {});
    await until(() => gate.waiting === 3);
    for (const g of gone) g.abort();
    await until(() => gate.waiting === 0);
    release();
    const statuses = await Promise.all(held.map(async (h) => (await h.answered).statusCode));
    expect(statuses).toEqual([401, 401]);
    // Only the two held sign-ins were checked; a later one is checked as usual.
    const later = await (await signIn('storm-later').answered).statusCode;
    expect(later).toBe(401);
    expect(checks).toHaveBeenCalledTimes(3);
    expect(gate.started - startedBefore).toBe(3);
  });

  it('answers 503 login_busy with Retry-After once the queue would outlast its wait, without checking a password', async () => {
    const gate = t.ctx.security.hashGate;
    const { checks, release } = holdPasswordChecks();
    const post = (usr: string) =>
      t.request('POST', '/api/method/login', { body: { usr, pwd: 'wrong password' } });
    // The slots (2), then as many as the gate expects to get through within its longest wait (5 s) at its
    // estimate of a sign-in's duration, one account each (sign-ins of one account queue apart). The held
    // checks do not finish, so the estimate does not move while the test runs.
    const queued = Math.min(256, Math.floor(5_000 / (gate.workMs / 2)));
    const accepted = Array.from({ length: 2 + queued }, (_, i) => post(`queue-${i}`));
    await until(() => gate.waiting === queued);
    const refused = await post('one-too-many');
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: { code: 'login_busy' } });
    expect(gate.waiting).toBe(queued);
    expect(checks).toHaveBeenCalledTimes(2);
    release();
    const answers = await Promise.all(accepted);
    expect(answers.every((r) => r.status === 401)).toBe(true);
    expect(checks).toHaveBeenCalledTimes(2 + queued);
  });
});
