/**
 * MACROSERVICE discovery against MONOLITH, measured in one run:
 * 1. discovery-query throughput (`POST /api/gateway/discovery/query`, 20 resources) through a MACROSERVICE
 *    gateway (directory mirrored from a NATS KV bucket) and through a MONOLITH app (directory scanned from
 *    the installed apps), both on real servers with the full middleware chain, alternating rounds; printed as
 *    the ratio macroservice / monolith;
 * 2. time from a service's start to its visibility in discovery: from `ManifestPublisher.start()` (the
 *    manifest put) to the gateway answering the new owner over HTTP (median and max of several services),
 *    and from `startService()` (database, app, server, manifest) to the same answer.
 * A private nats-server is started on a free port and stopped at the end.
 */
import autocannon from 'autocannon';
import { NatsBus } from '../backend/bus/nats-bus';
import { loadConfig } from '../backend/config/load-config';
import { openDatabase } from '../backend/db/open-database';
import { ManifestPublisher } from '../backend/gateway/manifests/manifest-publisher';
import { startGateway } from '../backend/roots/gateway';
import { startMonolith } from '../backend/roots/monolith';
import { startService } from '../backend/roots/service';
import { MemoryKeyStore } from '../backend/security/keys/memory-key-store';
import type { ServiceManifest } from '../src/protocol';
import { startNatsServer } from '../test/helpers/nats-server';

const CONNECTIONS = 50;
const DURATION_S = 6;
const WARMUP_S = 1;
const ROUNDS = 3;
const SECRET = 'bench-macro-secret-0123456789abcdef-0123456789';

const resources = [
  'crm.Customer',
  'crm.Lead',
  'stock.Item',
  'stock.Warehouse',
  ...Array.from({ length: 16 }, (_, i) => `other.Doc${i}`),
];
const body = JSON.stringify({ resources, services: { crm: 0 } });
const headers = { 'content-type': 'application/json' };

async function round(url: string, duration: number) {
  const result = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx responses`);
  }
  return result;
}

async function compare(urls: [string, string]) {
  for (const url of urls) await round(url, WARMUP_S);
  const totals = urls.map(() => ({ requests: 0, p99: 0 }));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, url] of urls.entries()) {
      const result = await round(url, DURATION_S / ROUNDS);
      totals[i]!.requests += result.requests.total;
      totals[i]!.p99 = Math.max(totals[i]!.p99, result.latency.p99);
    }
  }
  return totals.map((t) => ({ rps: t.requests / DURATION_S, p99: t.p99 }));
}

async function ownerOf(gatewayUrl: string, doctype: string): Promise<string | null> {
  const res = await fetch(`${gatewayUrl}/api/gateway/discovery/query`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ resources: [doctype] }),
  });
  return ((await res.json()) as { resources: Record<string, string | null> }).resources[doctype] ?? null;
}

/** Milliseconds from `start()` to the gateway naming `service` as the owner of `doctype` (polled every 2 ms). */
async function timeToVisible(
  gatewayUrl: string,
  doctype: string,
  service: string,
  start: () => Promise<unknown>,
) {
  const t0 = performance.now();
  await start();
  while ((await ownerOf(gatewayUrl, doctype)) !== service) await new Promise((r) => setTimeout(r, 2));
  return performance.now() - t0;
}

const nats = await startNatsServer();
const config = loadConfig({
  env: {},
  overrides: {
    'security.rate_limit.max_requests': 1_000_000_000,
    'server.port': 0,
    'nats.url': nats.url,
  },
});
const keys = () => MemoryKeyStore.create({ graceMs: 60_000 });
const monolithDb = await openDatabase({ memory: true });
const monolith = await startMonolith(
  { ...config, server: { ...config.server, host: '127.0.0.1' } },
  { database: monolithDb, keys: await keys(), log: () => {} },
);

const gatewayDb = await openDatabase({ memory: true });
const gateway = await startGateway(
  { ...config, mode: 'macroservice' },
  { secret: SECRET, log: () => {}, context: { database: gatewayDb, keys: await keys() } },
);
const bus = await NatsBus.connect({ url: nats.url, log: () => {} });
const store = await bus.keyValue<ServiceManifest>(config.nats.bucket, {
  ttlMs: config.nats.ttl_seconds * 1000,
});
const publishers: ManifestPublisher[] = [];
const publish = (service: string, doctypes: string[]) => {
  const publisher = new ManifestPublisher({ bus, store, heartbeatMs: 5_000, log: () => {} });
  publishers.push(publisher);
  return publisher.start({
    service,
    url: `http://127.0.0.1:9/desk/assets/${service}/remoteEntry.js`,
    apiUrl: 'http://127.0.0.1:9/api',
    metaUrl: `http://127.0.0.1:9/api/meta/${service}`,
    doctypes,
  });
};

try {
  // The same services on both sides: crm and stock own the same DocTypes.
  await publish('crm', ['crm.Customer', 'crm.Lead']);
  await publish('stock', ['stock.Item', 'stock.Warehouse']);
  while ((await ownerOf(gateway.url, 'stock.Item')) !== 'stock') await new Promise((r) => setTimeout(r, 10));

  const [base, macro] = await compare([
    `${monolith.url}/api/gateway/discovery/query`,
    `${gateway.url}/api/gateway/discovery/query`,
  ]);
  console.log(
    `discovery query, ${resources.length} resources, ${CONNECTIONS} connections, ${DURATION_S} s each`,
  );
  console.log(`  MONOLITH gateway     ${base!.rps.toFixed(0).padStart(7)} req/s   p99 ${base!.p99} ms`);
  console.log(`  MACROSERVICE gateway ${macro!.rps.toFixed(0).padStart(7)} req/s   p99 ${macro!.p99} ms`);
  console.log(`  ratio macroservice/monolith: ${(macro!.rps / base!.rps).toFixed(2)}x`);

  const samples: number[] = [];
  for (let i = 0; i < 15; i++) {
    samples.push(
      await timeToVisible(gateway.url, `svc${i}.Thing`, `svc${i}`, () =>
        publish(`svc${i}`, [`svc${i}.Thing`]),
      ),
    );
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)]!;
  console.log(
    `manifest put -> visible in discovery: median ${median.toFixed(1)} ms, max ${samples.at(-1)!.toFixed(1)} ms (${samples.length} services)`,
  );

  const serviceDb = await openDatabase({ memory: true });
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  const startup = await timeToVisible(gateway.url, 'crm.Customer', 'crm', async () => {
    await publishers[0]!.stop(); // crm leaves; the real service process takes its place
    service = await startService(config, {
      app: 'crm',
      secret: SECRET,
      log: () => {},
      bus,
      context: { database: serviceDb, keys: await keys() },
    });
  });
  console.log(`startService(crm) -> visible in discovery: ${startup.toFixed(0)} ms (in-memory database)`);
  await service?.close();
  await serviceDb.close();
} finally {
  for (const p of publishers) await p.stop();
  await bus.close();
  await gateway.close();
  await monolith.close();
  await gatewayDb.close();
  await monolithDb.close();
  await nats.dispose();
}
