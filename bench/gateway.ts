/**
 * Discovery-query throughput of the gateway: `POST /api/gateway/discovery/query` with 20 resources through
 * the real app on a real server (middleware chain included), against a bare node:http server that parses
 * the same body and answers the same JSON bytes. Both servers run in this process, one after the other,
 * with the same autocannon settings; autocannon runs in a child process of its own, so the load generator
 * does not share the servers' event loop (which hides part of the difference). The ratio (platform / bare)
 * is what to compare between runs and machines.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadConfig } from '../backend/config/load-config';
import { openDatabase } from '../backend/db/open-database';
import { startMonolith } from '../backend/roots/monolith';
import { MemoryKeyStore } from '../backend/security/keys/memory-key-store';

const CONNECTIONS = 50;
const DURATION_S = 5;
const WARMUP_S = 1;
/** Each side's run is split into rounds that alternate with the other side's, so a burst of load from
 * elsewhere on the machine hits both sides alike instead of skewing whichever ran at that moment. */
const ROUNDS = 2;

// 20 resources: every installed DocType and 16 that nobody owns (null owners), as a shell asking for a
// page's worth of DocTypes would.
const resources = [
  'crm.Customer',
  'crm.Lead',
  'stock.Item',
  'stock.Warehouse',
  ...Array.from({ length: 16 }, (_, i) => `other.Doc${i}`),
];
const body = JSON.stringify({ resources, services: { crm: 0 } });
const headers = { 'content-type': 'application/json' };

/** What a child autocannon run reports. */
interface RoundResult {
  errors: number;
  non2xx: number;
  requests: number;
  p99: number;
}

/** The child's program: runs autocannon with the options in its first argument, prints the figures. */
const GENERATOR = `import('autocannon').then(async ({ default: autocannon }) => {
  const r = await autocannon(JSON.parse(process.argv[1]));
  process.stdout.write(JSON.stringify({ errors: r.errors, non2xx: r.non2xx, requests: r.requests.total, p99: r.latency.p99 }));
})`;

/** One autocannon run against `url` in a child process. */
function round(url: string, duration: number): Promise<RoundResult> {
  const options = JSON.stringify({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration });
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', GENERATOR, options],
      { cwd: join(import.meta.dirname, '..'), timeout: (duration + 30) * 1000 },
      (err, stdout) => {
        if (err) return reject(err);
        const result = JSON.parse(stdout) as RoundResult;
        if (result.errors > 0 || result.non2xx > 0) {
          return reject(new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx responses`));
        }
        resolve(result);
      },
    );
  });
}

/** Requests per second of each URL over ROUNDS alternating rounds, and the worst p99 latency seen. */
async function compare(urls: [string, string]) {
  for (const url of urls) await round(url, WARMUP_S);
  const totals = urls.map(() => ({ requests: 0, p99: 0 }));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, url] of urls.entries()) {
      const result = await round(url, DURATION_S / ROUNDS);
      totals[i]!.requests += result.requests;
      totals[i]!.p99 = Math.max(totals[i]!.p99, result.p99);
    }
  }
  return totals.map((t) => ({ rps: t.requests / DURATION_S, p99: t.p99 }));
}

// The rate limit stays in the chain but cannot trigger: the benchmark is one client sending far more than a
// real one would.
const config = loadConfig({
  env: {},
  overrides: {
    'security.rate_limit.max_requests': 1_000_000_000,
    'server.host': '127.0.0.1',
    'server.port': 0,
  },
});
const database = await openDatabase({ memory: true });
const keys = await MemoryKeyStore.create({ graceMs: 60_000 });
const platform = await startMonolith(config, { database, keys, log: () => {} });

const probe = await fetch(`${platform.url}/api/gateway/discovery/query`, { method: 'POST', headers, body });
if (probe.status !== 200) throw new Error(`the platform answered ${probe.status}`);
const answer = Buffer.from(await probe.text());

const bare = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
    res.end(answer);
  });
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/api/gateway/discovery/query`;

try {
  const [baseline, measured] = await compare([bareUrl, `${platform.url}/api/gateway/discovery/query`]);
  console.log(
    `discovery query, ${resources.length} resources, ${CONNECTIONS} connections, ${DURATION_S} s each, load generator in its own process`,
  );
  console.log(`  bare node:http   ${baseline!.rps.toFixed(0).padStart(7)} req/s   p99 ${baseline!.p99} ms`);
  console.log(`  platform gateway ${measured!.rps.toFixed(0).padStart(7)} req/s   p99 ${measured!.p99} ms`);
  console.log(`  ratio platform/bare: ${(measured!.rps / baseline!.rps).toFixed(2)}x`);
} finally {
  bare.close();
  await platform.close();
  await database.close();
}
