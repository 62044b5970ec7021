/**
 * Discovery-query throughput of the gateway: `POST /api/gateway/discovery/query` with 20 resources through
 * the real app on a real server (middleware chain included), against a bare node:http server that parses
 * the same body and answers the same JSON bytes. Both servers run in this process, one after the other,
 * with the same autocannon settings; autocannon runs in a child process of its own, so the load generator
 * does not share the servers' event loop (which hides part of the difference). The ratio (platform / bare)
 * is what to compare between runs and machines; on a machine shared with other work the ratio of the two
 * servers' CPU per request (this process's CPU during each side's rounds) is the steadier figure.
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
const WARMUP_S = 1;
/** Each side's run is split into rounds that alternate with the other side's, so a burst of load from
 * elsewhere on the machine hits both sides alike instead of skewing whichever ran at that moment. */
const ROUNDS = 5;
const ROUND_S = 2;

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

/** The median of `values` (the mean of the middle two for an even count). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Both URLs over ROUNDS alternating rounds: each side's requests per second and worst p99, and the ratio
 * second/first of each round (a round's two runs are next to each other in time, so they share the
 * machine's load of that moment; the median of the rounds' ratios is the least moved by a burst elsewhere).
 */
async function compare(urls: [string, string]) {
  for (const url of urls) await round(url, WARMUP_S);
  const totals = urls.map(() => ({ requests: 0, p99: 0, cpuUs: 0 }));
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const rps: number[] = [];
    for (const [i, url] of urls.entries()) {
      // Both servers run in this process and only one is loaded at a time: this process's CPU during a
      // round is that server's (the generator is a child process).
      const cpu = process.cpuUsage();
      const result = await round(url, ROUND_S);
      const used = process.cpuUsage(cpu);
      totals[i]!.cpuUs += used.user + used.system;
      totals[i]!.requests += result.requests;
      totals[i]!.p99 = Math.max(totals[i]!.p99, result.p99);
      rps.push(result.requests / ROUND_S);
    }
    ratios.push(rps[1]! / rps[0]!);
  }
  const sides = totals.map((t) => ({
    rps: t.requests / (ROUNDS * ROUND_S),
    p99: t.p99,
    cpuUsPerRequest: t.cpuUs / t.requests,
  }));
  return { baseline: sides[0]!, measured: sides[1]!, ratios };
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
  const { baseline, measured, ratios } = await compare([
    bareUrl,
    `${platform.url}/api/gateway/discovery/query`,
  ]);
  console.log(
    `discovery query, ${resources.length} resources, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${ROUND_S} s, load generator in its own process`,
  );
  for (const [label, side] of [
    ['bare node:http  ', baseline],
    ['platform gateway', measured],
  ] as const) {
    console.log(
      `  ${label} ${side.rps.toFixed(0).padStart(7)} req/s   p99 ${side.p99} ms   ${side.cpuUsPerRequest.toFixed(1)} us CPU/request`,
    );
  }
  const range = `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
  console.log(
    `  ratio platform/bare: ${median(ratios).toFixed(2)}x (median of the rounds' ratios; rounds ${range}; totals ${(measured.rps / baseline.rps).toFixed(2)}x)`,
  );
  // What the throughput ratio is where the server, not a shared machine, is the limit: CPU per request.
  console.log(
    `  CPU per request bare/platform: ${(baseline.cpuUsPerRequest / measured.cpuUsPerRequest).toFixed(2)}x (the throughput ratio of a CPU-bound server; least moved by other load on the machine)`,
  );
} finally {
  bare.close();
  await platform.close();
  await database.close();
}
