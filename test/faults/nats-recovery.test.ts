import { mkdirSync, rmSync } from 'node:fs';
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
import { apiKeyAuthorization } from '../helpers/auth';
import { type NatsServerHandle, startNatsServer } from '../helpers/nats-server';
import { makeAppsFixture } from '../helpers/test-app';

const SECRET = 'nats-recovery-test-secret-0123456789abcdef';
const GATEWAY_URL = 'http://gateway.test';
const HEARTBEAT_SECONDS = 1;

let nats: NatsServerHandle;
let gateway: Gateway;
let service: RunningService;
const databases: Database[] = [];
const logs: string[] = [];
let authorization: string;
let config: PlatformConfig;

beforeAll(async () => {
  nats = await startNatsServer();
  const appsDir = makeAppsFixture({ crm: false, stock: false });
  config = loadConfig({
    file: join(ROOT_DIR, 'platform.toml'),
    env: {},
    overrides: {
      mode: 'macroservice',
      'server.port': 0,
      'server.public_url': GATEWAY_URL,
      'security.payload_encryption.mode': 'disabled',
      'nats.url': nats.url,
      'nats.ttl_seconds': 3,
      'nats.heartbeat_seconds': HEARTBEAT_SECONDS,
    },
  });
  const keys = () => MemoryKeyStore.create({ graceMs: 86_400_000 });
  const gatewayDb = await openDatabase({ memory: true });
  databases.push(gatewayDb);
  gateway = await createGateway(config, {
    secret: SECRET,
    log: (line) => logs.push(`gateway ${line}`),
    context: { database: gatewayDb, keys: await keys() },
  });
  authorization = await apiKeyAuthorization(gateway.ctx);
  // The service on the gateways' database (one server for both, as a small deployment may run): an embedded
  // database is slow to initialise, and the gateway's tables and the service's do not overlap.
  const serviceDb = gatewayDb;
  service = await startService(
    { ...config, server: { ...config.server, public_url: undefined } },
    {
      app: 'crm',
      secret: SECRET,
      log: (line) => logs.push(`crm ${line}`),
      context: { database: serviceDb, appsDir, keys: await keys() },
    },
  );
});

afterAll(async () => {
  await service?.close();
  await gateway?.close();
  for (const db of databases) await db.close();
  await nats?.dispose();
});

function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return gateway.app.fetch(
    new Request(`${GATEWAY_URL}${path}`, {
      method,
      headers: {
        authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

/** Discovery knows crm, its data answers, and an idempotent create is stored (and replayed). */
async function healthy(tag: string): Promise<boolean> {
  const discovery = await send('POST', '/api/gateway/discovery/query', {
    resources: ['crm.Lead'],
    services: {},
  });
  if (discovery.status !== 200 || !(await discovery.text()).includes('"crm"')) return false;
  if ((await send('GET', '/api/resource/crm.Lead?limit=1')).status !== 200) return false;
  const key = { 'idempotency-key': `recovery-${tag}` };
  const first = await send(
    'POST',
    '/api/resource/crm.Lead',
    { lead_name: `Lead ${tag}`, source: 'Website' },
    key,
  );
  if (first.status !== 201) return false;
  const again = await send(
    'POST',
    '/api/resource/crm.Lead',
    { lead_name: `Lead ${tag}`, source: 'Website' },
    key,
  );
  return again.status === 201 && (await again.text()) === (await first.text());
}

async function eventually(check: () => Promise<boolean>, tries = 120): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

describe('NATS lost and back with an empty store', () => {
  it('re-creates the buckets; discovery, data and idempotency come back with no process restarted', async () => {
    expect(await eventually(() => healthy('before'))).toBe(true);

    await nats.stop();
    rmSync(nats.storeDir, { recursive: true, force: true });
    mkdirSync(nats.storeDir, { recursive: true });
    await nats.restart();

    let attempt = 0;
    expect(await eventually(() => healthy(`after-${attempt++}`))).toBe(true);
    // Still the same processes, and past one bucket TTL the service is still there (its heartbeat re-put it).
    await new Promise((r) => setTimeout(r, (config.nats.ttl_seconds + 1) * 1000));
    expect(await healthy('after-ttl')).toBe(true);

    // Each transition is logged once per process, not once per failed heartbeat.
    const count = (pattern: RegExp) => logs.filter((l) => pattern.test(l)).length;
    const heartbeat = logs
      .filter((l) => /heartbeat of crm (failed|resumed)/.test(l))
      .map((l) => l.includes('failed'));
    for (let i = 1; i < heartbeat.length; i++) expect(heartbeat[i]).not.toBe(heartbeat[i - 1]);
    expect(count(/^crm .*heartbeat of crm failed/)).toBe(count(/^crm .*heartbeat of crm resumed/));
    expect(count(/^gateway bus: NATS reconnected/)).toBe(1);
    expect(count(/^crm bus: NATS reconnected/)).toBe(1);
  });
});
