/**
 * How far the load-test harness can be trusted, measured in one run against autocannon:
 * 1. throughput: the same fast node:http server (in a child process, so neither tool shares its event loop
 *    with it), the same number of connections, alternating rounds; printed as harness/autocannon req/s;
 * 2. latency error: a server that answers after a fixed 50 ms and measures its own time per request (the
 *    truth); printed as reported p50/p99 minus the server's p50/p99, in microseconds, for both tools.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadPlan } from '../src/benchmarks/config/load-plan';
import { runLoadTest } from '../src/benchmarks/run';

const CONNECTIONS = 50;
const ROUND_S = 3;
const ROUNDS = 2;
const SLOW_S = 5;
const DELAY_MS = 50;

type Stats = { p50: number; p99: number; count: number };

// Child process: the servers. `/` answers a small JSON at once; `/slow` after DELAY_MS, timing itself.
if (process.argv.includes('--serve')) {
  let times: number[] = [];
  const body = JSON.stringify({ ok: true, data: { name: 'REC-1' } });
  const server = createServer((req, res) => {
    const start = process.hrtime.bigint();
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url !== '/slow') return res.end(body);
      res.on('finish', () => times.push(Number(process.hrtime.bigint() - start) / 1000));
      setTimeout(() => res.end(body), DELAY_MS);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('message', (m) => {
    if (m === 'reset') times = [];
    if (m === 'stats') {
      const sorted = [...times].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      process.send!({ p50: at(0.5), p99: at(0.99), count: sorted.length } satisfies Stats);
    }
    if (m === 'exit') process.exit(0);
  });
} else {
  await main();
}

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(message);
  });
}

async function harness(url: string, path: string, seconds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-loadtest-'));
  try {
    const yaml = `target_url: ${url}
auth: { mode: none }
users: { peak: ${CONNECTIONS} }
duration_seconds: ${seconds}
http: { connections: ${CONNECTIONS} }
thresholds: { p95_ms: 60000 }
targets: [{ type: endpoint, name: hit, method: GET, path: ${path} }]
`;
    const plan = loadPlan(yaml, join(dir, 'load.yaml'), {});
    if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
    const { result } = await runLoadTest({
      plan: plan.plan,
      outDir: dir,
      live: { write: () => true },
    });
    if (result.total.failed + result.total.errors > 0) throw new Error('harness saw failures');
    return {
      rps: result.total.count / seconds,
      p50Us: result.total.latencyMs.p50 * 1000,
      p99Us: result.total.latencyMs.p99 * 1000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function cannon(url: string, seconds: number) {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds });
  if (r.errors > 0 || r.non2xx > 0) throw new Error('autocannon saw failures');
  return { rps: r.requests.total / seconds, p50Us: r.latency.p50 * 1000, p99Us: r.latency.p99 * 1000 };
}

async function main() {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv: ['--import', 'tsx'] });
  try {
    const { port } = await new Promise<{ port: number }>((resolve) =>
      child.once('message', (m) => resolve(m as { port: number })),
    );
    const base = `http://127.0.0.1:${port}`;
    // Warm-up of the server's and both tools' JIT.
    await cannon(`${base}/`, 1);
    await harness(base, '/', 1);

    let ours = 0;
    let theirs = 0;
    for (let i = 0; i < ROUNDS; i++) {
      ours += (await harness(base, '/', ROUND_S)).rps;
      theirs += (await cannon(`${base}/`, ROUND_S)).rps;
    }
    ours /= ROUNDS;
    theirs /= ROUNDS;
    console.log(
      `Throughput, fast node:http server, ${CONNECTIONS} connections, ${ROUNDS} x ${ROUND_S} s each (alternating):`,
    );
    console.log(`  harness     ${ours.toFixed(0)} req/s`);
    console.log(`  autocannon  ${theirs.toFixed(0)} req/s`);
    console.log(`  ratio harness / autocannon: ${(ours / theirs).toFixed(2)}x`);

    const rows: string[] = [];
    for (const [name, runTool] of [
      ['harness', () => harness(base, '/slow', SLOW_S)],
      ['autocannon', () => cannon(`${base}/slow`, SLOW_S)],
    ] as const) {
      child.send('reset');
      await ask<Stats>(child, 'stats'); // the reset is processed before the run starts
      const r = await runTool();
      const truth = await ask<Stats>(child, 'stats');
      rows.push(
        `  ${name.padEnd(10)}  reported p50 ${r.p50Us.toFixed(0)} us, p99 ${r.p99Us.toFixed(0)} us; ` +
          `server truth p50 ${truth.p50.toFixed(0)} us, p99 ${truth.p99.toFixed(0)} us (${truth.count} requests); ` +
          `error p50 ${(r.p50Us - truth.p50).toFixed(0)} us (${(r.p50Us / truth.p50).toFixed(3)}x), ` +
          `p99 ${(r.p99Us - truth.p99).toFixed(0)} us (${(r.p99Us / truth.p99).toFixed(3)}x)`,
      );
    }
    console.log(
      `\nLatency error, server answering after ${DELAY_MS} ms, ${CONNECTIONS} connections, ${SLOW_S} s:`,
    );
    for (const row of rows) console.log(row);
  } finally {
    child.send('exit');
  }
}
