/**
 * The replay window of a MACROSERVICE gateway survives the loss of the NATS store
 * (docs/security.md#replay-window): a JWE accepted before nats-server is stopped, its store deleted and the
 * server started again empty is still refused with 400 `replayed`, because the gateway's database remembers
 * it; the NATS KV bucket only adds what other gateways saw.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../../backend/roots/gateway';
import { SecurityClient } from '../../../src/sdk/security';
import { GATEWAY_URL, macroserviceConfig, startMemoryGateway } from '../../helpers/macroservice';
import { type NatsServerHandle, startNatsServer, waitUntil } from '../../helpers/nats-server';

const SECRET = 'test-secret-of-at-least-32-characters!!';
let nats: NatsServerHandle;
let gateway: Gateway;
let close: () => Promise<void>;
const temp = mkdtempSync(join(tmpdir(), 'replay-nats-wipe-'));

beforeAll(async () => {
  nats = await startNatsServer();
  const config = macroserviceConfig(nats.url, temp, { 'security.payload_encryption.mode': 'selective' });
  const started = await startMemoryGateway(config, SECRET);
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

const viaGateway: typeof fetch = async (input, init) =>
  gateway.app.fetch(new Request(input instanceof Request ? input : String(input), init));

const login = (jwe: string) =>
  viaGateway(`${GATEWAY_URL}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/jose', origin: GATEWAY_URL },
    body: jwe,
  });

describe('a gateway after NATS lost its store', () => {
  it('still refuses a JWE it accepted before with 400 replayed', async () => {
    const client = new SecurityClient({ baseUrl: GATEWAY_URL, fetch: viaGateway });
    const payload = await client.encryptPayload(
      { usr: 'Administrator', pwd: 'admin' },
      `${GATEWAY_URL}/api/method/login`,
      'POST',
    );
    expect(payload.contentType).toBe('application/jose');
    expect((await login(payload.body)).status).toBe(200);

    await nats.stop();
    rmSync(nats.storeDir, { recursive: true, force: true });
    mkdirSync(nats.storeDir);
    await nats.restart();
    // A fresh token is accepted once the gateway works against the empty store again.
    await waitUntil(
      async () => {
        const fresh = await client.encryptPayload(
          { usr: 'Administrator', pwd: 'admin' },
          `${GATEWAY_URL}/api/method/login`,
          'POST',
        );
        return (await login(fresh.body)).status === 200;
      },
      30_000,
      'a sign-in against the emptied NATS',
      500,
    );

    const replayed = await login(payload.body);
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as { error: { code: string } }).error.code).toBe('replayed');
  }, 90_000);
});
