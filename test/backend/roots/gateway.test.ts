import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_DISCOVERY_SUBJECT } from '../../../backend/bus/bus';
import { NatsBus } from '../../../backend/bus/nats-bus';
import type { PlatformConfig } from '../../../backend/config/schema';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { ManifestPublisher } from '../../../backend/gateway/manifests/manifest-publisher';
import { schemaBroadcast } from '../../../backend/gateway/manifests/schema-broadcast';
import { createGateway, type Gateway } from '../../../backend/roots/gateway';
import { type RunningService, startService } from '../../../backend/roots/service';
import type { DiscoveryResult, RemotesMap, ServiceManifest } from '../../../src/protocol';
import { apiKeyAuthorization } from '../../helpers/auth';
import {
  GATEWAY_URL,
  gatewayRequest,
  memoryKeys as keys,
  macroserviceConfig,
  serviceConfigOf,
} from '../../helpers/macroservice';
import { type NatsServerHandle, startNatsServer, waitUntil } from '../../helpers/nats-server';
import { makeAppsFixture } from '../../helpers/test-app';

const SECRET = 'macroservice-test-secret-0123456789abcdef';

let nats: NatsServerHandle;
let config: PlatformConfig;
let appsDir: string;
let dataDir: string;
let gatewayDb: Database;
const gateways: Gateway[] = [];
const services: Record<string, RunningService> = {};
const databases: Database[] = [];
let authorization: string;
let probe: NatsBus;

async function newGateway(): Promise<Gateway> {
  // Gateways behind one load balancer share the user database (and, through NATS, idempotency records).
  const gateway = await createGateway(config, {
    secret: SECRET,
    log: () => {},
    context: { database: gatewayDb, keys: await keys(config) },
  });
  gateways.push(gateway);
  return gateway;
}

async function newService(app: string): Promise<RunningService> {
  const database = await openDatabase({ memory: true });
  databases.push(database);
  const service = await startService(config, {
    app,
    secret: SECRET,
    log: () => {},
    context: { database, appsDir, keys: await keys(config) },
  });
  services[app] = service;
  return service;
}

function send(
  gateway: Gateway,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return gatewayRequest(gateway, authorization, method, path, body, headers);
}

async function discover(gateway: Gateway, resources: string[], known: Record<string, number> = {}) {
  const res = await send(gateway, 'POST', '/api/gateway/discovery/query', { resources, services: known });
  expect(res.status).toBe(200);
  return (await res.json()) as DiscoveryResult;
}

beforeAll(async () => {
  nats = await startNatsServer();
  appsDir = makeAppsFixture({ crm: false, stock: true });
  dataDir = mkdtempSync(join(tmpdir(), 'desk-macro-'));
  config = macroserviceConfig(nats.url, dataDir, {
    'nats.bus_source_of_truth': true,
    'desk.upstream_timeout_ms': 2_000,
  });
  gatewayDb = await openDatabase({ memory: true });
  await newGateway();
  authorization = await apiKeyAuthorization(gateways[0]!.ctx);
  // Services publish their own address: public_url is the gateway's only.
  config = serviceConfigOf(config);
  await newService('crm');
  probe = await NatsBus.connect({ url: nats.url, log: () => {} });
});

afterAll(async () => {
  for (const s of Object.values(services)) await s.close();
  for (const g of gateways) await g.close();
  await probe?.close();
  for (const d of [...databases, gatewayDb]) await d?.close();
  await nats?.dispose();
  for (const dir of [appsDir, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('MACROSERVICE gateway', () => {
  it('discovers a started service and hands browsers manifests that point at the gateway', async () => {
    const gateway = gateways[0]!;
    await waitUntil(
      async () => (await discover(gateway, ['crm.Customer'])).resources['crm.Customer'] === 'crm',
    );
    const result = await discover(gateway, ['crm.Customer', 'hr.Employee']);
    expect(result.resources).toEqual({ 'crm.Customer': 'crm', 'hr.Employee': null });
    expect(result.services.crm).toMatchObject({
      service: 'crm',
      apiUrl: `${GATEWAY_URL}/api`,
      metaUrl: `${GATEWAY_URL}/api/meta/crm`,
      url: null,
    });
    // Forwarding uses the service's own address.
    expect(gateway.directory.get('crm')?.apiUrl).toBe(`${services.crm!.url}/api`);
  });

  it('reaches the data API of a service through the gateway with X-Platform-Service', async () => {
    const gateway = gateways[0]!;
    const created = await send(
      gateway,
      'POST',
      '/api/resource/crm.Customer',
      { customer_name: 'Ada' },
      {
        'X-Platform-Service': 'crm',
      },
    );
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { name: string; customer_name: string } };
    expect(data.customer_name).toBe('Ada');
    const read = await send(gateway, 'GET', `/api/resource/crm.Customer/${data.name}`, undefined, {
      'X-Platform-Service': 'crm',
    });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: { customer_name: string } }).data.customer_name).toBe('Ada');
    const meta = await send(gateway, 'GET', '/api/meta/crm');
    expect(((await meta.json()) as { service: string }).service).toBe('crm');
  });

  it("keeps a record's attachment at the service owning it: uploaded, listed and downloaded through the gateway", async () => {
    const gateway = gateways[0]!;
    const created = await send(gateway, 'POST', '/api/resource/crm.Customer', { customer_name: 'Filed' });
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    const base = `/api/resource/crm.Customer/${name}/attachments`;
    // Not valid UTF-8: the bytes must arrive as sent, under the gateway's signature.
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0xff, 0xfe, 0x00, 0x80]);
    const uploaded = await gateway.app.fetch(
      new Request(`${GATEWAY_URL}${base}?filename=scan.pdf`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/pdf', 'content-length': '8' },
        body: bytes,
      }),
    );
    expect(uploaded.status).toBe(201);
    const stored = ((await uploaded.json()) as { data: { id: string; sha256: string; size: number } }).data;
    expect(stored.size).toBe(8);
    const listed = await send(gateway, 'GET', base);
    expect(((await listed.json()) as { data: Array<{ id: string }> }).data.map((a) => a.id)).toEqual([
      stored.id,
    ]);
    const download = await send(gateway, 'GET', `${base}/${stored.id}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''scan.pdf");
    expect(download.headers.get('content-security-policy')).toBe('sandbox');
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    // In the service's own data directory, not the gateway's.
    expect(existsSync(join(dataDir, 'services', 'crm', 'attachments', stored.sha256))).toBe(true);
    expect(existsSync(join(dataDir, 'attachments'))).toBe(false);
    // The service's timeline of the record says so.
    const history = await send(gateway, 'GET', `/api/history/crm.Customer/${name}`);
    expect(history.status).toBe(200);
    const entries = ((await history.json()) as { data: Array<{ kind: string; changes: unknown[] }> }).data;
    expect(entries.map((e) => e.kind)).toEqual(['create', 'attach']);
    expect(entries[1]!.changes).toEqual([{ field: 'attachment', new: 'scan.pdf' }]);
  });

  it('refuses a data request without credentials at the gateway, before any forwarding', async () => {
    const res = await gateways[0]!.app.fetch(new Request(`${GATEWAY_URL}/api/resource/crm.Customer`));
    expect(res.status).toBe(401);
  });

  it('answers 404 unknown_service for a service nobody registered', async () => {
    const res = await send(gateways[0]!, 'GET', '/api/resource/crm.Customer', undefined, {
      'X-Platform-Service': 'billing',
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unknown_service');
  });

  it('enforces metadata-mode encryption for the services DocTypes although it installs no apps', async () => {
    const strict = await createGateway(
      {
        ...config,
        server: { ...config.server, public_url: GATEWAY_URL },
        security: {
          ...config.security,
          payload_encryption: { ...config.security.payload_encryption, mode: 'metadata' },
        },
      },
      { secret: SECRET, log: () => {}, context: { database: gatewayDb, keys: await keys(config) } },
    );
    gateways.push(strict);
    const headers = { 'X-Platform-Service': 'crm' };
    // crm.Customer has pii fields: plaintext is refused once the gateway has read crm's metadata.
    await waitUntil(
      async () =>
        (await send(strict, 'POST', '/api/resource/crm.Customer', { customer_name: 'Eve' }, headers))
          .status === 415,
    );
    const lead = await send(strict, 'POST', '/api/resource/crm.Lead', { lead_name: 'Plain' }, headers);
    expect(lead.status).toBe(201);
  });

  it('stores one record for an idempotent create sent to two gateway instances', async () => {
    const [a, b] = [gateways[0]!, await newGateway()];
    await waitUntil(() => b.directory.get('crm') !== undefined);
    const headers = { 'X-Platform-Service': 'crm', 'Idempotency-Key': 'create-grace-1' };
    const body = { customer_name: 'Grace Hopper' };
    const first = await send(a, 'POST', '/api/resource/crm.Customer', body, headers);
    const second = await send(b, 'POST', '/api/resource/crm.Customer', body, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(await second.json()).toEqual(await first.json());
    const list = await send(
      a,
      'GET',
      `/api/resource/crm.Customer?filters=${encodeURIComponent(JSON.stringify({ customer_name: 'Grace Hopper' }))}`,
      undefined,
      { 'X-Platform-Service': 'crm' },
    );
    expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
  });

  it('shows clients a new rev when a service manifest changes', async () => {
    const gateway = gateways[0]!;
    const before = gateway.directory.get('crm')!;
    expect(before.url).toBeNull();
    // The crm UI remote is built while the service runs: its manifest gains a url and a new rev.
    mkdirSync(join(appsDir, 'crm', 'static', 'mfe'), { recursive: true });
    writeFileSync(join(appsDir, 'crm', 'static', 'mfe', 'remoteEntry.js'), 'window.crm = 1;\n');
    let answer: DiscoveryResult | undefined;
    await waitUntil(async () => {
      answer = await discover(gateway, [], { crm: before.rev });
      return answer.services.crm !== undefined;
    }, 10_000);
    expect(answer!.services.crm!.rev).toBeGreaterThan(before.rev);
    expect(answer!.services.crm!.url).toBe(`${services.crm!.url}/desk/assets/crm/remoteEntry.js`);
    // A client already holding the new rev is not sent the manifest again.
    const again = await discover(gateway, [], { crm: answer!.services.crm!.rev });
    expect(again.services.crm).toBeUndefined();
  });

  it('serves a service UI remote through the gateway when the asset proxy is enabled', async () => {
    const proxied = await createGateway(
      {
        ...config,
        desk: { ...config.desk, mfe_proxy_enabled: true },
        server: { ...config.server, public_url: GATEWAY_URL },
      },
      { secret: SECRET, log: () => {}, context: { database: gatewayDb, keys: await keys(config) } },
    );
    gateways.push(proxied);
    await waitUntil(() => proxied.directory.get('crm')?.url != null);
    const found = await discover(proxied, ['crm.Customer']);
    expect(found.services.crm?.url).toBe(`${GATEWAY_URL}/desk/assets/crm/remoteEntry.js`);
    // A navigation's query (held revs, remotes: true) names the entry the remotes map does, in one answer.
    const navigation = await send(proxied, 'POST', '/api/gateway/discovery/query', {
      resources: [],
      services: { crm: found.services.crm!.rev },
      remotes: true,
    });
    const answer = (await navigation.json()) as DiscoveryResult;
    const map = (await (await send(proxied, 'GET', '/api/gateway/remotes')).json()) as RemotesMap;
    expect(answer.services).toEqual({});
    expect(answer.remotes?.crm).toBe(`${GATEWAY_URL}/desk/assets/crm/remoteEntry.js`);
    expect(answer.remotes).toEqual(Object.fromEntries(Object.entries(map).map(([n, u]) => [n, u.url])));
    const asset = await send(proxied, 'GET', '/desk/assets/crm/remoteEntry.js', undefined, {
      cookie: 'sid=x',
    });
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe('window.crm = 1;\n');
    expect((await send(proxied, 'GET', '/desk/assets/crm/..%2fsecret.js')).status).toBe(400);
    expect((await send(proxied, 'GET', '/desk/assets/billing/remoteEntry.js')).status).toBe(404);
  });

  it('discovers a service that only sends the legacy broadcast', async () => {
    const gateway = gateways[0]!;
    const legacy: ServiceManifest = {
      service: 'legacy',
      rev: 7,
      url: 'http://127.0.0.1:9/desk/assets/legacy/remoteEntry.js',
      apiUrl: 'http://127.0.0.1:9/api',
      metaUrl: 'http://127.0.0.1:9/api/meta/legacy',
      doctypes: ['legacy.Order'],
    };
    await waitUntil(async () => {
      await probe.publish(SCHEMA_DISCOVERY_SUBJECT, schemaBroadcast(legacy));
      return (await discover(gateway, ['legacy.Order'])).resources['legacy.Order'] === 'legacy';
    });
    expect((await discover(gateway, ['legacy.Order'])).services.legacy?.rev).toBe(7);
  });

  it('drops a service at once when it shuts down cleanly', async () => {
    const gateway = gateways[0]!;
    await newService('stock');
    await waitUntil(() => gateway.directory.get('stock') !== undefined);
    await services.stock!.close();
    delete services.stock;
    await waitUntil(() => gateway.directory.get('stock') === undefined, 2_000);
    const res = await send(gateway, 'GET', '/api/resource/stock.Item', undefined, {
      'X-Platform-Service': 'stock',
    });
    expect(res.status).toBe(404);
  });

  it('keeps answering while NATS is down and resyncs once it is back', async () => {
    const gateway = gateways[0]!;
    await nats.stop();
    await waitUntil(() => gateway.directory.list().length > 0 && probe.status() === 'disconnected');
    // For longer than the TTL, discovery keeps answering from the last known manifests.
    const outageEnd = Date.now() + 3_500;
    while (Date.now() < outageEnd) {
      expect((await discover(gateway, ['crm.Customer'])).resources['crm.Customer']).toBe('crm');
      await new Promise((r) => setTimeout(r, 250));
    }
    await nats.restart();
    const late: ManifestPublisher[] = [];
    await waitUntil(async () => {
      // NATS is back once a manifest can be stored again.
      const store = await probe.keyValue<ServiceManifest>(config.nats.bucket, { ttlMs: 3_000 });
      const publisher = new ManifestPublisher({ bus: probe, store, heartbeatMs: 1_000, log: () => {} });
      await publisher.start({
        service: 'late',
        url: null,
        apiUrl: 'http://127.0.0.1:9/api',
        metaUrl: 'http://127.0.0.1:9/api/meta/late',
        doctypes: ['late.Thing'],
      });
      late.push(publisher);
      return true;
    }, 20_000);
    try {
      await waitUntil(
        async () => (await discover(gateway, ['late.Thing'])).resources['late.Thing'] === 'late',
        20_000,
      );
      expect((await discover(gateway, ['crm.Customer'])).resources['crm.Customer']).toBe('crm');
    } finally {
      for (const publisher of late) await publisher.stop();
    }
  });
});
