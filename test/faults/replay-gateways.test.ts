import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../backend/config/load-config';
import type { PlatformConfig } from '../../backend/config/schema';
import type { Database } from '../../backend/db/database';
import { openDatabase } from '../../backend/db/open-database';
import { ROOT_DIR } from '../../backend/roots/context';
import { createGateway, type Gateway } from '../../backend/roots/gateway';
import { type RunningService, startService } from '../../backend/roots/service';
import { MemoryKeyStore } from '../../backend/security/keys/memory-key-store';
import { JOSE_CONTENT_TYPE } from '../../src/protocol';
import { sdkJwe } from '../backend/security/jwe-support';
import { apiKeyAuthorization } from '../helpers/auth';
import { type NatsServerHandle, startNatsServer } from '../helpers/nats-server';
import { makeAppsFixture } from '../helpers/test-app';

const SECRET = 'replay-gateways-test-secret-0123456789abcdef';
const GATEWAY_URL = 'http://gateway.test';
const PATH = '/api/resource/crm.Lead';

let nats: NatsServerHandle;
const gateways: Gateway[] = [];
let service: RunningService;
const databases: Database[] = [];
let authorization: string;

beforeAll(async () => {
  nats = await startNatsServer();
  const config: PlatformConfig = loadConfig({
    file: join(ROOT_DIR, 'platform.toml'),
    env: {},
    overrides: {
      mode: 'macroservice',
      'server.port': 0,
      'server.public_url': GATEWAY_URL,
      'security.payload_encryption.mode': 'strict',
      'nats.url': nats.url,
    },
  });
  // Two gateways behind one load balancer: one user database, one key ring, one NATS.
  const gatewayDb = await openDatabase({ memory: true });
  databases.push(gatewayDb);
  const keys = await MemoryKeyStore.create({ graceMs: 86_400_000 });
  for (let i = 0; i < 2; i++) {
    gateways.push(
      await createGateway(config, { secret: SECRET, log: () => {}, context: { database: gatewayDb, keys } }),
    );
  }
  authorization = await apiKeyAuthorization(gateways[0]!.ctx);
  // The service on the gateways' database (one server for both, as a small deployment may run): an embedded
  // database is slow to initialise, and the gateway's tables and the service's do not overlap.
  const serviceDb = gatewayDb;
  service = await startService(
    { ...config, server: { ...config.server, public_url: undefined } },
    {
      app: 'crm',
      secret: SECRET,
      log: () => {},
      context: {
        database: serviceDb,
        appsDir: makeAppsFixture({ crm: false }),
        keys: await MemoryKeyStore.create({ graceMs: 86_400_000 }),
      },
    },
  );
});

afterAll(async () => {
  await service?.close();
  for (const g of gateways) await g.close();
  for (const db of databases) await db.close();
  await nats?.dispose();
});

function sendJwe(gateway: Gateway, jwe: string) {
  return gateway.app.fetch(
    new Request(`${GATEWAY_URL}${PATH}`, {
      method: 'POST',
      headers: { authorization, 'content-type': JOSE_CONTENT_TYPE },
      body: jwe,
    }),
  );
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 120 && !(await check().catch(() => false)); i++)
    await new Promise((r) => setTimeout(r, 250));
}

describe('replay across gateways (MACROSERVICE)', () => {
  it('refuses a JWE replayed to the other gateway, and to the same one, with 400 replayed', async () => {
    const [a, b] = gateways as [Gateway, Gateway];
    // Wait until both gateways route crm.
    await until(async () => {
      const jwe = await sdkJwe(a.ctx, 'POST', PATH, { lead_name: 'Warm-up', source: 'Website' });
      return (await sendJwe(a, jwe)).status === 201;
    });
    const jwe = await sdkJwe(a.ctx, 'POST', PATH, { lead_name: 'Captured', source: 'Website' });
    expect((await sendJwe(a, jwe)).status).toBe(201);
    for (const gateway of [b, a]) {
      const replay = await sendJwe(gateway, jwe);
      expect(replay.status).toBe(400);
      expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('replayed');
    }
    const other = await sdkJwe(b.ctx, 'POST', PATH, { lead_name: 'Second', source: 'Website' });
    expect((await sendJwe(b, other)).status).toBe(201);
    expect((await sendJwe(a, other)).status).toBe(400);
  });
});
