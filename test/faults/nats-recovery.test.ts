import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
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
import { GATEWAY_URL, gatewayRequest } from '../helpers/macroservice';
import { type NatsServerHandle, startNatsServer } from '../helpers/nats-server';
import { makeAppsFixture } from '../helpers/test-app';

const SECRET = 'nats-recovery-test-secret-0123456789abcdef';
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
  return gatewayRequest(gateway, authorization, method, path, body, headers);
}

/** Discovery knows crm and its data answers through the gateway. */
async function routed(): Promise<boolean> {
  const discovery = await send('POST', '/api/gateway/discovery/query', {
    resources: ['crm.Lead'],
    services: {},
  });
  if (discovery.status !== 200 || !(await discovery.text()).includes('"crm"')) return false;
  return (await send('GET', '/api/resource/crm.Lead?limit=1')).status === 200;
}

/** An idempotent create, sent twice: both 201 with the same body (the second replayed by the service). */
async function expectIdempotentCreate(tag: string): Promise<void> {
  const key = { 'idempotency-key': `recovery-${tag}` };
  const body = { lead_name: `Lead ${tag}`, source: 'Website' };
  const first = await send('POST', '/api/resource/crm.Lead', body, key);
  const firstText = await first.text();
  expect(first.status, firstText).toBe(201);
  const again = await send('POST', '/api/resource/crm.Lead', body, key);
  expect(again.status).toBe(201);
  expect(await again.text()).toBe(firstText);
}

/** Polls `condition` every 100 ms until it holds; fails naming `what` after 60 s. */
async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await Promise.resolve(condition()).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}:\n${logs.join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const count = (pattern: RegExp) => logs.filter((l) => pattern.test(l)).length;

/** The manifest bucket's stream: how many puts it has taken (only crm writes it here) and its TTL. */
async function manifestStream(): Promise<{ puts: number; ttlSeconds: number }> {
  const nc = await connect({ servers: nats.url });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(`KV_${config.nats.bucket}`);
    return { puts: info.state.last_seq, ttlSeconds: info.config.max_age / 1e9 };
  } finally {
    await nc.close();
  }
}

/**
 * Stops NATS until crm's heartbeat has failed and a few more beats have gone by (each one failing again, to
 * be logged or not), then starts it again, with its store or with an empty one. Resolves once both processes
 * logged the reconnection.
 */
async function outage(keepStore: boolean): Promise<void> {
  const reconnected = count(/bus: NATS reconnected/);
  const failed = count(/heartbeat of crm failed/);
  await nats.stop();
  await until('crm logs a failed heartbeat', () => count(/heartbeat of crm failed/) > failed);
  await new Promise((r) => setTimeout(r, 2 * HEARTBEAT_SECONDS * 1000));
  if (!keepStore) {
    rmSync(nats.storeDir, { recursive: true, force: true });
    mkdirSync(nats.storeDir, { recursive: true });
  }
  await nats.restart();
  await until('both processes reconnect', () => count(/bus: NATS reconnected/) >= reconnected + 2);
}

/**
 * After NATS is back: crm's manifest is in the bucket again (with the bucket's TTL), discovery and data answer
 * through the gateway, with no process restarted; the very next idempotent request is answered, not 503.
 */
async function expectRecovered(putsBefore: number, tag: string): Promise<void> {
  await until('crm re-publishes its manifest', async () => (await manifestStream()).puts > putsBefore);
  expect((await manifestStream()).ttlSeconds).toBe(config.nats.ttl_seconds);
  await until('discovery and data answer again', routed);
  await expectIdempotentCreate(tag);
}

const PER_PROCESS_TRANSITIONS = [
  /^gateway bus: NATS connection lost/,
  /^gateway bus: NATS reconnected/,
  /^crm bus: NATS connection lost/,
  /^crm bus: NATS reconnected/,
  /^crm .*heartbeat of crm failed/,
  /^crm .*heartbeat of crm resumed/,
];

describe('NATS lost and back, with or without its store', () => {
  it('keeps its store: discovery, data and idempotency back with no process restarted, each transition logged once', async () => {
    await until('crm is routed', routed);
    await expectIdempotentCreate('before');
    const { puts } = await manifestStream();

    await outage(true);
    await expectRecovered(puts, 'after-restart');
    for (const pattern of PER_PROCESS_TRANSITIONS)
      expect(count(pattern), `${pattern}\n${logs.join('\n')}`).toBe(1);
    expect(count(/was missing on NATS/)).toBe(0);
  });

  it('loses its store: buckets re-created with their TTL, discovery, data and idempotency back, each transition and lost bucket logged once', async () => {
    await outage(false);
    // A new stream: its sequence starts again at 0.
    await expectRecovered(0, 'after-store-lost');
    for (const pattern of PER_PROCESS_TRANSITIONS)
      expect(count(pattern), `${pattern}\n${logs.join('\n')}`).toBe(2);
    // Each process logs each lost bucket it uses at most once; the manifest bucket was lost (idempotency records
    // are in the service's database, not on NATS, so their loss cannot forget a key).
    for (const who of ['gateway', 'crm']) {
      const lines = logs.filter((l) => l.startsWith(`${who} `) && /was missing on NATS/.test(l));
      expect(new Set(lines).size, lines.join('\n')).toBe(lines.length);
    }
    expect(count(new RegExp(`KV bucket ${config.nats.bucket} was missing`))).toBeGreaterThanOrEqual(1);

    // Past one bucket TTL crm is still routed: its heartbeat keeps re-putting into the re-created bucket.
    await new Promise((r) => setTimeout(r, (config.nats.ttl_seconds + 1) * 1000));
    expect(await routed()).toBe(true);
    expect(count(/^crm .*heartbeat of crm failed/), logs.join('\n')).toBe(2);
  });
});
