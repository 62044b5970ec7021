/**
 * How far the load-test harness can be trusted, and what it costs, measured in one run against autocannon:
 * 1. cost: the reference load (167 req/s, open model, 1,000 users) from the built harness in a process of
 *    its own, against autocannon at the same rate and for the same time in its own, alternating over
 *    COST_ROUNDS rounds; CPU seconds during the load from each process's own accounting (every thread of
 *    the process: the harness's generator threads included), and peak RSS; printed per round, and as the
 *    ratio of the two tools' total CPU and the harness's highest RSS;
 * 2. throughput, twice, the same number of connections, alternating rounds, both tools in this process
 *    (CPU per request from its accounting of each round): against a raw node:net server that answers
 *    every request head with fixed bytes (a few microseconds per request, far less than either tool
 *    spends: the tool limits the rate, so the rate measures the tool), and against a fast node:http
 *    server (about as costly per request as the tools: it saturates first, so both rates are mostly the
 *    server's); the servers run in a child process, so neither tool shares its event loop with them;
 * 3. latency error: a server that answers after a fixed 50 ms and measures its own time per request (the
 *    truth); LATENCY_ROUNDS alternating runs of each tool, each printed as reported p50/p99 and their
 *    difference from the server's, in microseconds; the ratio of the harness's summed |error| to
 *    autocannon's, as autocannon reports (whole milliseconds, rounded down) and at microseconds (its own
 *    duration of each response, the harness's resolution): closed model (as fast as the connections go),
 *    then open model (OPEN_RATE req/s: the harness's `rate`, autocannon's `overallRate`).
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadPlan } from '../src/benchmarks/config/load-plan';
import { runLoadTest } from '../src/benchmarks/run';
import { exactStats, type Stats } from './support/loadtest-servers';

const CONNECTIONS = 50;
/** The reference load: 10,000 requests a minute, open model, 1,000 users configured. */
const REF_RATE = 167;
const REF_USERS = 1000;
const REF_S = 10;
/** autocannon's connections at the reference rate (it opens them all at once). */
const REF_CANNON_CONNECTIONS = 100;
/** Alternating harness/autocannon rounds of the cost measurement (a shared machine's noise evens out). */
const COST_ROUNDS = 5;
const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
const ROUND_S = 3;
/** Alternating full-speed rounds (a shared machine's noise evens out). */
const ROUNDS = 5;
/** Alternating runs of each tool per latency measurement. */
const LATENCY_ROUNDS = 3;
const SLOW_S = 5;
/** Arrival rate of the open-model latency rows (about 10 requests in flight against the 50 ms server). */
const OPEN_RATE = 200;

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(message);
  });
}

/** The harness in this process: closed model on CONNECTIONS users, or open model at `rate`. */
async function harness(url: string, path: string, seconds: number, rate?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-loadtest-'));
  try {
    const yaml = `target_url: ${url}
auth: { mode: none }
users: { peak: ${CONNECTIONS} }
${rate ? `rate: { requests_per_second: ${rate} }\n` : ''}duration_seconds: ${seconds}
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

/**
 * autocannon in this process. Besides what it reports (its histogram holds whole milliseconds, rounded
 * down), its own duration of every response, which it times in fractions of a millisecond: its figures
 * at the harness's resolution.
 */
async function cannon(url: string, seconds: number, rate?: number, timeEach = false) {
  const exact: number[] = [];
  const run = autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
  }) as ReturnType<typeof autocannon> & {
    // Without a callback the run is a promise and also its event emitter (typed as the promise only).
    on(
      event: 'response',
      listener: (client: unknown, status: number, bytes: number, ms: number) => void,
    ): void;
  };
  if (timeEach)
    run.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) =>
      exact.push(ms * 1000),
    );
  const r = await run;
  if (r.errors > 0 || r.non2xx > 0) throw new Error('autocannon saw failures');
  const e = exactStats(exact);
  return {
    rps: r.requests.total / seconds,
    p50Us: r.latency.p50 * 1000,
    p99Us: r.latency.p99 * 1000,
    exact: { p50Us: e.p50, p99Us: e.p99 },
  };
}

type Cost = { cpuS: number; maxRssMb: number; requests: number };

/** The built harness at the reference load, in its own process (as `m benchmark` runs in production). */
function harnessCost(url: string): Cost {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cost-'));
  try {
    writeFileSync(
      join(dir, 'load.yaml'),
      `target_url: ${url}
auth: { mode: none }
users: { peak: ${REF_USERS} }
rate: { requests_per_second: ${REF_RATE} }
duration_seconds: ${REF_S}
thresholds: { p95_ms: 60000 }
generator: { max_event_loop_lag_ms: 60000 }
targets: [{ type: endpoint, name: hit, method: GET, path: / }]
`,
    );
    const usage = join(dir, 'usage.json');
    try {
      execFileSync(
        process.execPath,
        [
          '--import',
          join(ROOT, 'bench', 'loadtest-usage.mjs'),
          join(ROOT, 'dist', 'benchmarks', 'load-test.js'),
          '--config',
          join(dir, 'load.yaml'),
          '--out',
          join(dir, 'out'),
        ],
        { env: { ...process.env, BENCH_USAGE_FILE: usage }, stdio: 'ignore' },
      );
    } catch {
      // A verdict other than pass exits non-zero; the numbers are still read below.
    }
    const result = JSON.parse(readFileSync(join(dir, 'out', 'result.json'), 'utf8')) as {
      total: { count: number; failed: number; errors: number };
      startedAt: string;
      finishedAt: string;
      verdict: { saturation: { cpuPercent: number } };
    };
    if (result.total.failed + result.total.errors > 0) throw new Error('harness saw failures');
    const { maxRssMb } = JSON.parse(readFileSync(usage, 'utf8')) as { maxRssMb: number };
    // The process's CPU from second 0 to the end of the run (its share of the elapsed time, as the
    // result reports it), like autocannon's from the start of its run to its end.
    const elapsedS = (Date.parse(result.finishedAt) - Date.parse(result.startedAt)) / 1000;
    return {
      cpuS: (result.verdict.saturation.cpuPercent / 100) * elapsedS,
      maxRssMb,
      requests: result.total.count,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** autocannon at the reference rate, in its own process. */
function cannonCost(url: string): Cost {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cost-'));
  try {
    const usage = join(dir, 'usage.json');
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        join(ROOT, 'bench', 'loadtest-usage.mjs'),
        join(ROOT, 'bench', 'loadtest-autocannon.mjs'),
        url,
        String(REF_CANNON_CONNECTIONS),
        String(REF_S),
        String(REF_RATE),
      ],
      { env: { ...process.env, BENCH_USAGE_FILE: usage }, encoding: 'utf8' },
    );
    const r = JSON.parse(out.trim().split('\n').at(-1)!) as {
      requests: number;
      failures: number;
      cpuS: number;
    };
    if (r.failures > 0) throw new Error('autocannon saw failures');
    const { maxRssMb } = JSON.parse(readFileSync(usage, 'utf8')) as { maxRssMb: number };
    return { cpuS: r.cpuS, maxRssMb, requests: r.requests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const child = fork(join(ROOT, 'bench', 'support', 'loadtest-servers.ts'), [], {
    execArgv: ['--import', 'tsx'],
  });
  try {
    const { port, rawPort } = await new Promise<{ port: number; rawPort: number }>((resolve) =>
      child.once('message', (m) => resolve(m as { port: number; rawPort: number })),
    );
    const base = `http://127.0.0.1:${port}`;
    const rawBase = `http://127.0.0.1:${rawPort}`;
    execFileSync('npm', ['run', '--silent', 'build:harness'], { cwd: ROOT, stdio: 'inherit' });
    const rounds: Array<{ ours: Cost; theirs: Cost }> = [];
    for (let i = 0; i < COST_ROUNDS; i++)
      rounds.push({ ours: harnessCost(base), theirs: cannonCost(`${base}/`) });
    const sum = (f: (r: { ours: Cost; theirs: Cost }) => number) => rounds.reduce((n, r) => n + f(r), 0);
    const costRatio = sum((r) => r.ours.cpuS) / sum((r) => r.theirs.cpuS);
    const ours = { maxRssMb: Math.max(...rounds.map((r) => r.ours.maxRssMb)) };
    console.log(
      `Cost at the reference load (${REF_RATE} req/s, open model, ${REF_USERS} users; autocannon ${REF_CANNON_CONNECTIONS} connections), ${REF_S} s, each tool in its own process, ${COST_ROUNDS} alternating rounds:`,
    );
    for (const [i, r] of rounds.entries()) {
      for (const [name, c] of [
        ['harness', r.ours],
        ['autocannon', r.theirs],
      ] as const) {
        console.log(
          `  ${i + 1}. ${name.padEnd(10)}  ${c.requests} requests, CPU ${c.cpuS.toFixed(2)} s (${((c.cpuS / REF_S) * 100).toFixed(1)} % of a core), peak RSS ${c.maxRssMb.toFixed(0)} MB`,
        );
      }
      console.log(`     ratio ${(r.ours.cpuS / r.theirs.cpuS).toFixed(2)}x`);
    }
    console.log(
      `  ratio harness / autocannon CPU (all rounds): ${costRatio.toFixed(2)}x (goal <= 2x); harness RSS ${ours.maxRssMb.toFixed(0)} MB (goal <= 120)`,
    );
    // autocannon's overallRate overshoots the asked rate; per request, the two are compared at one load.
    const perRequest =
      sum((r) => r.ours.cpuS) /
      sum((r) => r.ours.requests) /
      (sum((r) => r.theirs.cpuS) / sum((r) => r.theirs.requests));
    console.log(
      `  autocannon sent ${sum((r) => r.theirs.requests)} requests to the harness's ${sum((r) => r.ours.requests)}; CPU per request harness / autocannon: ${perRequest.toFixed(2)}x`,
    );
    // Warm-up of the servers' and both tools' JIT.
    await cannon(`${rawBase}/`, 1);
    await harness(rawBase, '/', 1);

    /**
     * ROUNDS alternating full-speed rounds of each tool against `url`, both in this process: request
     * rates, and CPU per request from this process's accounting of each round.
     */
    const throughput = async (url: string, title: string) => {
      const ours = { rps: 0, cpuS: 0, count: 0 };
      const theirs = { rps: 0, cpuS: 0, count: 0 };
      const perRound: string[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        let before = process.cpuUsage();
        const o = await harness(url, '/', ROUND_S);
        let cpu = process.cpuUsage(before);
        ours.rps += o.rps / ROUNDS;
        ours.cpuS += (cpu.user + cpu.system) / 1e6;
        ours.count += o.rps * ROUND_S;
        before = process.cpuUsage();
        const t = await cannon(`${url}/`, ROUND_S);
        cpu = process.cpuUsage(before);
        theirs.rps += t.rps / ROUNDS;
        theirs.cpuS += (cpu.user + cpu.system) / 1e6;
        theirs.count += t.rps * ROUND_S;
        perRound.push(`${(o.rps / t.rps).toFixed(2)}x`);
      }
      const usPerRequest = (x: { cpuS: number; count: number }) => (x.cpuS / x.count) * 1e6;
      const rate = ours.rps / theirs.rps;
      console.log(
        `\nThroughput, ${title}, ${CONNECTIONS} connections, ${ROUNDS} x ${ROUND_S} s each (alternating):`,
      );
      console.log(
        `  harness     ${ours.rps.toFixed(0)} req/s, CPU ${usPerRequest(ours).toFixed(1)} us per request`,
      );
      console.log(
        `  autocannon  ${theirs.rps.toFixed(0)} req/s, CPU ${usPerRequest(theirs).toFixed(1)} us per request`,
      );
      console.log(
        `  ratio harness / autocannon: ${rate.toFixed(2)}x (rounds ${perRound.join(', ')}); CPU per request ${(usPerRequest(ours) / usPerRequest(theirs)).toFixed(2)}x`,
      );
      return rate;
    };
    const speedRatio = await throughput(
      rawBase,
      'raw node:net server (the tool limits the rate; goal >= 1x)',
    );
    await cannon(`${base}/`, 1);
    await harness(base, '/', 1);
    const httpSpeedRatio = await throughput(
      base,
      'node:http server (one process: the server limits the rate)',
    );

    type Reported = { p50Us: number; p99Us: number };
    type Errors = { p50: number; p99: number };
    /** One tool's run against the 50 ms server, with the server's own record of that run. */
    const measure = async <R extends Reported>(run: () => Promise<R>) => {
      child.send('reset');
      await ask<Stats>(child, 'stats'); // the reset is processed before the run starts
      const r = await run();
      return { r, truth: await ask<Stats>(child, 'stats') };
    };
    const errorsOf = (r: Reported, truth: Stats): Errors => ({
      p50: Math.abs(r.p50Us - truth.p50),
      p99: Math.abs(r.p99Us - truth.p99),
    });
    const row = (name: string, r: Reported, truth: Stats) =>
      `    ${name.padEnd(14)} p50 ${r.p50Us.toFixed(0)} us (${signed(r.p50Us - truth.p50)}), ` +
      `p99 ${r.p99Us.toFixed(0)} us (${signed(r.p99Us - truth.p99)}); server p50 ${truth.p50.toFixed(0)}, p99 ${truth.p99.toFixed(0)} (${truth.count} requests)`;
    const signed = (us: number) => `${us >= 0 ? '+' : ''}${us.toFixed(0)}`;
    const sumErrors = (list: Errors[]): Errors => ({
      p50: list.reduce((n, e) => n + e.p50, 0),
      p99: list.reduce((n, e) => n + e.p99, 0),
    });
    const ratio = (ours: Errors, theirs: Errors) => ({
      p50: ours.p50 / Math.max(1, theirs.p50),
      p99: ours.p99 / Math.max(1, theirs.p99),
    });
    const show = (x: Errors) => `p50 ${x.p50.toFixed(2)}x, p99 ${x.p99.toFixed(2)}x`;
    /**
     * LATENCY_ROUNDS alternating runs of each tool against the 50 ms server; each tool's |error| summed
     * over its runs, as it reports them, and with both at microseconds (autocannon's own duration of each
     * response instead of its whole-millisecond histogram).
     */
    const latencyRounds = async (title: string, rate?: number) => {
      console.log(
        `\nLatency error against the server's own record, ${title}, ${LATENCY_ROUNDS} alternating runs of ${SLOW_S} s:`,
      );
      const ours: Errors[] = [];
      const theirs: Errors[] = [];
      const theirsExact: Errors[] = [];
      for (let i = 0; i < LATENCY_ROUNDS; i++) {
        const o = await measure(() => harness(base, '/slow', SLOW_S, rate));
        const t = await measure(() => cannon(`${base}/slow`, SLOW_S, rate, true));
        ours.push(errorsOf(o.r, o.truth));
        theirs.push(errorsOf(t.r, t.truth));
        theirsExact.push(errorsOf(t.r.exact, t.truth));
        console.log(`  ${i + 1}.${row('harness', o.r, o.truth).slice(3)}`);
        console.log(row('autocannon', t.r, t.truth));
        console.log(row('autocannon us', t.r.exact, t.truth));
      }
      const reported = ratio(sumErrors(ours), sumErrors(theirs));
      const exact = ratio(sumErrors(ours), sumErrors(theirsExact));
      console.log(
        `  ratio of |error| harness / autocannon as reported (whole ms): ${show(reported)} (goal <= 1x)`,
      );
      console.log(`  the same, autocannon at microseconds as the harness: ${show(exact)} (goal <= 1x)`);
      return { reported, exact };
    };

    const closed = await latencyRounds(`closed model, ${CONNECTIONS} connections`);
    const open = await latencyRounds(
      `open model at ${OPEN_RATE} req/s (harness \`rate\`, autocannon overallRate), ${CONNECTIONS} connections at most`,
      OPEN_RATE,
    );
    console.log(
      `\nSummary: CPU ${costRatio.toFixed(2)}x autocannon, RSS ${ours.maxRssMb.toFixed(0)} MB; throughput ${speedRatio.toFixed(2)}x (against node:http ${httpSpeedRatio.toFixed(2)}x); latency error closed ${show(closed.reported)} (at us ${show(closed.exact)}), open ${show(open.reported)} (at us ${show(open.exact)})`,
    );
  } finally {
    child.send('exit');
  }
}

await main();
