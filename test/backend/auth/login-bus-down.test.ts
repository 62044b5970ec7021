/**
 * Sign-in at a MACROSERVICE gateway while NATS is down (docs/security.md#login-throttling): the shared
 * sign-in counters cannot be read, so the sign-in is 503 `unavailable` with `Retry-After`, never a 500; once
 * NATS is back, the same sign-in succeeds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../backend/roots/gateway';
import { GATEWAY_URL, macroserviceConfig, startMemoryGateway } from '../../helpers/macroservice';
import { type NatsServerHandle, startNatsServer, waitUntil } from '../../helpers/nats-server';

const SECRET = 'test-secret-of-at-least-32-characters!!';
let nats: NatsServerHandle;
let gateway: Gateway;
let close: () => Promise<void>;
const temp = mkdtempSync(join(tmpdir(), 'login-bus-down-'));

beforeAll(async () => {
  nats = await startNatsServer();
  const started = await startMemoryGateway(macroserviceConfig(nats.url, temp), SECRET);
  gateway = started.gateway;
  close = async () => {
    await started.gateway.close();
    await started.database.close();
  };
}, 60_000);
afterAll(async () => {
  await close?.();
  await nats?.dispose();
  rmSync(temp, { recursive: true, force: true });
});

const login = () =>
  Promise.resolve(
    gateway.app.fetch(
      new Request(`${GATEWAY_URL}/api/method/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: GATEWAY_URL },
        body: JSON.stringify({ usr: 'Administrator', pwd: 'admin' }),
      }),
    ),
  );

describe('sign-in at a gateway while NATS is down', () => {
  it('answers 503 unavailable with Retry-After, then signs in once NATS is back', async () => {
    expect((await login()).status).toBe(200);
    await nats.stop();
    const down = await login();
    expect(down.status).toBe(503);
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await down.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    await nats.restart();
    await waitUntil(async () => (await login()).status === 200, 30_000, 'a sign-in after NATS returned', 500);
  }, 90_000);
});
