/**
 * No 404 when NATS comes back empty (docs/operators.md#resilience): a crm list polled through a MACROSERVICE
 * gateway is answered 200 every time while nats-server is stopped, its store deleted, started again empty, and
 * the manifest bucket filled again by crm's heartbeat, and for two manifest TTLs after that. The gateway keeps
 * its last known directory while NATS is away and does not take the new, empty bucket for the services being
 * gone; crm re-publishes its manifest on the reconnect.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformConfig } from '../../../backend/config/schema';
import type { Gateway } from '../../../backend/roots/gateway';
import { apiKeyAuthorization } from '../../helpers/auth';
import {
  gatewayRequest,
  macroserviceConfig,
  serviceConfigOf,
  startMemoryGateway,
  startMemoryService,
} from '../../helpers/macroservice';
import { type NatsServerHandle, startNatsServer, waitUntil } from '../../helpers/nats-server';
import { makeAppsFixture } from '../../helpers/test-app';

const SECRET = 'directory-wipe-secret-0123456789abcdef';
let nats: NatsServerHandle;
let config: PlatformConfig;
let gateway: Gateway;
let admin: string;
const closers: (() => Promise<void>)[] = [];
const temp = mkdtempSync(join(tmpdir(), 'directory-nats-wipe-'));
const appsDir = makeAppsFixture({ crm: false });

beforeAll(async () => {
  nats = await startNatsServer();
  config = macroserviceConfig(nats.url, temp);
  const started = await startMemoryGateway(config, SECRET);
  gateway = started.gateway;
  closers.push(
    () => started.database.close(),
    () => started.gateway.close(),
  );
  const crm = await startMemoryService(serviceConfigOf(config), 'crm', appsDir, SECRET);
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

/** How many puts the manifest bucket's stream has taken: the revision the next manifest put gets, less one. */
async function manifestPuts(): Promise<number> {
  const nc = await connect({ servers: nats.url });
  try {
    return (await (await jetstreamManager(nc)).streams.info(`KV_${config.nats.bucket}`)).state.last_seq;
  } finally {
    await nc.close();
  }
}

const listLeads = () => gatewayRequest(gateway, admin, 'GET', '/api/resource/crm.Lead?limit=1');

describe('a gateway whose NATS comes back with an empty store', () => {
  it('answers every crm list 200 through the outage, the refill and two manifest TTLs after it', async () => {
    await waitUntil(async () => (await listLeads()).status === 200, 30_000, 'crm routed', 100);
    const answers: { status: number; body: string; phase: string }[] = [];
    let phase = 'before';
    let polling = true;
    // One list at a time, paced so the whole run stays within a bounded number of requests.
    const poller = (async () => {
      for (let polls = 0; polling && polls < 2_000; polls++) {
        const res = await listLeads();
        answers.push({ status: res.status, body: res.status === 200 ? '' : await res.text(), phase });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    // Several heartbeats in: the manifest the gateway holds has a revision well above the first ones of a new,
    // empty stream.
    await waitUntil(async () => (await manifestPuts()) >= 8, 30_000, 'crm heartbeats', 200);

    phase = 'nats stopped';
    await nats.stop();
    const pollsWhileStopped = answers.length;
    await waitUntil(() => answers.length >= pollsWhileStopped + 5, 10_000, 'lists while NATS is stopped', 20);
    rmSync(nats.storeDir, { recursive: true, force: true });
    mkdirSync(nats.storeDir);
    phase = 'nats empty';
    await nats.restart();
    // Past two manifest TTLs after the restart: a directory that took the empty bucket (or the new stream's
    // low revisions) for crm being gone would have dropped it by then.
    const ttlMs = config.nats.ttl_seconds * 1000;
    const restartedAt = Date.now();
    await waitUntil(() => Date.now() - restartedAt > 2 * ttlMs, 4 * ttlMs + 10_000, 'two TTLs', 100);
    polling = false;
    await poller;

    const refused = answers.filter((a) => a.status !== 200);
    expect(refused, JSON.stringify(refused.slice(0, 5))).toEqual([]);
    expect(answers.filter((a) => a.phase === 'nats empty').length).toBeGreaterThan(10);
    expect(gateway.directory.get('crm')).toBeDefined();
  }, 120_000);
});
