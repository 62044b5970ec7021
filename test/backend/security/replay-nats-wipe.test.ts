/**
 * The replay window and the idempotency records of a MACROSERVICE deployment survive the loss of the NATS
 * store (docs/security.md#replay-window, docs/security.md#idempotency): after nats-server is stopped, its
 * store deleted and the server started again empty, a JWE accepted before is still refused with 400
 * `replayed`, because the gateway's database remembers it (the NATS KV bucket only adds what other gateways
 * saw), and a create retried with the same `Idempotency-Key` is replayed, not stored twice, because the
 * service keeps the record in its database, written with the create. Before that, concurrent copies of one
 * JWE sent with distinct ones: exactly one copy passes, the others get 400 `replayed`, every distinct one passes.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import type { Gateway } from '../../../backend/roots/gateway';
import { SecurityClient } from '../../../src/sdk/security';
import { apiKeyAuthorization } from '../../helpers/auth';
import {
  GATEWAY_URL,
  gatewayRequest,
  macroserviceConfig,
  serviceConfigOf,
  startMemoryGateway,
  startMemoryService,
} from '../../helpers/macroservice';
import { type NatsServerHandle, startNatsServer, waitUntil } from '../../helpers/nats-server';
import { makeAppsFixture } from '../../helpers/test-app';

const SECRET = 'test-secret-of-at-least-32-characters!!';
let nats: NatsServerHandle;
let gateway: Gateway;
let gatewayDatabase: Database;
let crmDatabase: Database;
let admin: string;
const closers: (() => Promise<void>)[] = [];
const temp = mkdtempSync(join(tmpdir(), 'replay-nats-wipe-'));
const appsDir = makeAppsFixture({ crm: false });

beforeAll(async () => {
  nats = await startNatsServer();
  const config = macroserviceConfig(nats.url, temp, { 'security.payload_encryption.mode': 'selective' });
  const started = await startMemoryGateway(config, SECRET);
  gateway = started.gateway;
  gatewayDatabase = started.database;
  closers.push(
    () => started.database.close(),
    () => started.gateway.close(),
  );
  const crm = await startMemoryService(serviceConfigOf(config), 'crm', appsDir, SECRET);
  crmDatabase = crm.database;
  closers.push(
    () => crm.database.close(),
    () => crm.service.close(),
  );
  admin = await apiKeyAuthorization(gateway.ctx);
}, 60_000);
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await nats?.dispose();
  rmSync(temp, { recursive: true, force: true });
  rmSync(appsDir, { recursive: true, force: true });
});

/** Stops nats-server, deletes its store and starts it again empty. */
async function wipeNats(): Promise<void> {
  await nats.stop();
  rmSync(nats.storeDir, { recursive: true, force: true });
  mkdirSync(nats.storeDir);
  await nats.restart();
}

const createLead = (key: string) =>
  gatewayRequest(
    gateway,
    admin,
    'POST',
    '/api/resource/crm.Lead',
    { lead_name: 'Once only' },
    {
      'idempotency-key': key,
    },
  );

async function leadsNamed(name: string): Promise<number> {
  const { rows } = await crmDatabase.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM records WHERE doctype = 'crm.Lead' AND data->>'lead_name' = $1",
    [name],
  );
  return rows[0]!.n;
}

const idempotencyRows = async (db: Database) =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform_idempotency')).rows[0]!.n;

const viaGateway: typeof fetch = async (input, init) =>
  gateway.app.fetch(new Request(input instanceof Request ? input : String(input), init));

const login = (jwe: string) =>
  viaGateway(`${GATEWAY_URL}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/jose', origin: GATEWAY_URL },
    body: jwe,
  });

describe('a gateway receiving encrypted requests at once', () => {
  it('accepts one of concurrent copies of a JWE and every distinct one sent with them', async () => {
    const client = new SecurityClient({ baseUrl: GATEWAY_URL, fetch: viaGateway });
    const encrypt = () =>
      client.encryptPayload(
        { usr: 'Administrator', pwd: 'admin' },
        `${GATEWAY_URL}/api/method/login`,
        'POST',
      );
    const copied = await encrypt();
    const distinct = await Promise.all([1, 2, 3].map(encrypt));
    // Sent together, so the gateway's database claims the copies' one id and the others in shared statements.
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => login(copied.body)),
      ...distinct.map((payload) => login(payload.body)),
    ]);
    const copies = answers.slice(0, 4);
    expect(copies.map((res) => res.status).sort()).toEqual([200, 400, 400, 400]);
    for (const res of copies.filter((r) => r.status === 400)) {
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('replayed');
    }
    expect(answers.slice(4).map((res) => res.status)).toEqual([200, 200, 200]);
  }, 60_000);
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

    await wipeNats();
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

  it('replays a create retried with the same Idempotency-Key instead of storing a second record', async () => {
    await waitUntil(
      async () => (await gatewayRequest(gateway, admin, 'GET', '/api/resource/crm.Lead')).status === 200,
      30_000,
      'crm routed through the gateway',
      200,
    );
    const key = 'wipe-retry-1';
    const gatewayRowsBefore = await idempotencyRows(gatewayDatabase);
    const first = await createLead(key);
    const firstBody = await first.text();
    expect(first.status, firstBody).toBe(201);
    expect(await leadsNamed('Once only')).toBe(1);
    // The record of the key is the service's, beside the lead; the gateway keeps none of it.
    expect(await idempotencyRows(crmDatabase)).toBe(1);
    expect(await idempotencyRows(gatewayDatabase)).toBe(gatewayRowsBefore);

    await wipeNats();
    // crm is routed again once its heartbeat re-publishes its manifest into the empty store.
    await waitUntil(
      async () => (await gatewayRequest(gateway, admin, 'GET', '/api/resource/crm.Lead')).status === 200,
      30_000,
      'crm routed again after the wipe',
      200,
    );
    const retry = await createLead(key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(firstBody);
    expect(await leadsNamed('Once only')).toBe(1);
  }, 90_000);
});
