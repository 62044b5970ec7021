/**
 * The load-test harness against autocannon as a user measures them: whole processes under `/usr/bin/time`
 * (start-up, worker threads, report writing and exit included), each tool started from its command line
 * against the same fixed server (bench/support/loadtest-servers.ts, in a process of its own):
 * 1. the reference load, 167 requests/s for 30 s (the harness: open model, 1,000 users; autocannon:
 *    `-R 167 -c 100`), ROUNDS alternating rounds: CPU seconds (user + system) and peak RSS of each process;
 * 2. the same load, both tools started together in each of ROUNDS rounds (each pair shares the machine's
 *    load of its moment, which alternating rounds do not): CPU seconds of each;
 * 3. a 1 s run of each at the same rate, ROUNDS alternating rounds: wall time from exec to exit.
 * Beside them in the long rounds, the floor of any generator that sends each arrival at its time and stamps
 * each response as it is read (bench/support/bare-open-client.mjs: a timer per arrival, a read per
 * response, nothing else), so that the CPU ratio can be read against what the open model itself costs.
 * Prints the ratios harness / autocannon (goals in docs/performance.md#benchmarks: CPU <= 1.3x, RSS <= 1.2x,
 * 1 s wall <= 1.1x) and the machine's load average before and after. Each round checks that its tool sent
 * at least 95 % of the asked requests without a failure, so a tool that sent less never looks cheaper.
 * bench/loadtest.ts measures inside the processes, during the load only.
 *
 * Run: `npm run bench loadtest-whole`.
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const RATE = 167;
const USERS = 1000;
const CONNECTIONS = 100;
const LONG_S = 30;
const SHORT_S = 1;
const ROUNDS = 3;

/** Least share of the asked requests (rate x seconds) a round must have sent to count. */
const MIN_SENT = 0.95;

/** What /usr/bin/time reports of one process: wall and CPU seconds, peak RSS in MB. */
interface Usage {
  wallS: number;
  cpuS: number;
  maxRssMb: number;
}

/**
 * Runs `args` under /usr/bin/time and resolves to what it measured, with the command's standard output;
 * the command's own exit code is ignored (each caller checks what the tool reports it did). Asynchronous,
 * so that two tools can run side by side.
 */
async function timed(args: string[]): Promise<Usage & { stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-whole-'));
  try {
    const out = join(dir, 'time.txt');
    const child = spawn('/usr/bin/time', ['-o', out, '-f', '%e %U %S %M', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', () => resolve());
    });
    const [wall, user, system, rssKb] = readFileSync(out, 'utf8').trim().split('\n').at(-1)!.split(' ');
    return {
      wallS: Number(wall),
      cpuS: Number(user) + Number(system),
      maxRssMb: Number(rssKb) / 1024,
      stdout: Buffer.concat(chunks).toString('utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Fails the benchmark when a tool sent fewer requests than asked, or any failed. */
function checkSent(tool: string, seconds: number, sent: number, failed: number): void {
  if (sent < MIN_SENT * RATE * seconds || failed > 0) {
    throw new Error(`${tool} sent ${sent} of ${RATE * seconds} requests asked, ${failed} failed`);
  }
}

/** The load average over 1, 5 and 15 minutes, as `uptime` prints it. */
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

/**
 * The harness as a user starts it, `m benchmark` (bin/m.js, which runs the built harness this file has just
 * built, after checking it is newer than its sources), for `seconds` at the reference rate; `check: false`
 * for a warm-up, whose count does not matter.
 */
async function harness(url: string, seconds: number, check = true): Promise<Usage> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-whole-harness-'));
  try {
    writeFileSync(
      join(dir, 'load.yaml'),
      `target_url: ${url}
auth: { mode: none }
users: { peak: ${USERS} }
rate: { requests_per_second: ${RATE} }
duration_seconds: ${seconds}
thresholds: { p95_ms: 60000 }
generator: { max_event_loop_lag_ms: 60000 }
targets: [{ type: endpoint, name: hit, method: GET, path: / }]
`,
    );
    const usage = await timed([
      process.execPath,
      join(ROOT, 'bin', 'm.js'),
      'benchmark',
      '--config',
      join(dir, 'load.yaml'),
      '--out',
      join(dir, 'out'),
    ]);
    const result = JSON.parse(readFileSync(join(dir, 'out', 'result.json'), 'utf8')) as {
      total: { count: number; failed: number; errors: number };
    };
    if (check)
      checkSent('the harness', seconds, result.total.count, result.total.failed + result.total.errors);
    return usage;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** autocannon's command line for `seconds` at the reference rate (`-j`: its result as JSON); see harness. */
async function cannon(url: string, seconds: number, check = true): Promise<Usage> {
  const usage = await timed([
    process.execPath,
    join(ROOT, 'node_modules', 'autocannon', 'autocannon.js'),
    '-c',
    String(CONNECTIONS),
    '-d',
    String(seconds),
    '-R',
    String(RATE),
    '-j',
    `${url}/`,
  ]);
  const result = JSON.parse(usage.stdout) as { requests: { total: number }; errors: number; non2xx: number };
  if (check) checkSent('autocannon', seconds, result.requests.total, result.errors + result.non2xx);
  return usage;
}

/** The bare open-model client (the floor) for `seconds` at the reference rate. */
async function floor(url: string, seconds: number): Promise<Usage> {
  const usage = await timed([
    process.execPath,
    join(ROOT, 'bench', 'support', 'bare-open-client.mjs'),
    url,
    String(RATE),
    String(seconds),
  ]);
  const { sent, received } = JSON.parse(usage.stdout) as { sent: number; received: number };
  checkSent('the bare client', seconds, received, sent - received);
  return usage;
}

const sum = (xs: Usage[], f: (u: Usage) => number) => xs.reduce((n, u) => n + f(u), 0);

const server = fork(join(ROOT, 'bench', 'support', 'loadtest-servers.ts'), [], {
  execArgv: ['--import', 'tsx'],
});
try {
  const { port } = await new Promise<{ port: number }>((resolve) =>
    server.once('message', (m) => resolve(m as { port: number })),
  );
  const url = `http://127.0.0.1:${port}`;
  console.log(`load average before: ${load()}`);
  execFileSync('npm', ['run', '--silent', 'build:harness'], { cwd: ROOT, stdio: 'inherit' });
  // Warm the server and the disk cache of both tools' files (on a busy machine a tool may start too late
  // to send its second's requests: a warm-up is not checked).
  await cannon(url, SHORT_S, false);
  await harness(url, SHORT_S, false);

  const ours: Usage[] = [];
  const theirs: Usage[] = [];
  const floors: Usage[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ours.push(await harness(url, LONG_S));
    theirs.push(await cannon(url, LONG_S));
    floors.push(await floor(url, LONG_S));
  }
  console.log(
    `Whole processes under /usr/bin/time, ${RATE} req/s for ${LONG_S} s, ${ROUNDS} alternating rounds (harness ${USERS} users, open model; autocannon -c ${CONNECTIONS} -R ${RATE}):`,
  );
  for (const [i, o] of ours.entries()) {
    const t = theirs[i]!;
    console.log(
      `  ${i + 1}. harness CPU ${o.cpuS.toFixed(2)} s, RSS ${o.maxRssMb.toFixed(0)} MB, wall ${o.wallS.toFixed(1)} s; ` +
        `autocannon CPU ${t.cpuS.toFixed(2)} s, RSS ${t.maxRssMb.toFixed(0)} MB, wall ${t.wallS.toFixed(1)} s`,
    );
  }
  const peak = (xs: Usage[]) => Math.max(...xs.map((u) => u.maxRssMb));
  console.log(
    `  CPU harness / autocannon: ${(sum(ours, (u) => u.cpuS) / sum(theirs, (u) => u.cpuS)).toFixed(2)}x (goal <= 1.3x)`,
  );
  const floorCpu = sum(floors, (u) => u.cpuS);
  console.log(
    `  floor (bare open-model client, CPU ${floors.map((u) => u.cpuS.toFixed(2)).join(', ')} s) / autocannon: ` +
      `${(floorCpu / sum(theirs, (u) => u.cpuS)).toFixed(2)}x; harness / floor: ${(sum(ours, (u) => u.cpuS) / floorCpu).toFixed(2)}x`,
  );
  console.log(`  peak RSS harness / autocannon: ${(peak(ours) / peak(theirs)).toFixed(2)}x (goal <= 1.2x)`);

  // The same load, both tools started together: each round's two processes share the machine's load of
  // that moment, which alternating rounds half a minute apart do not, so the ratio moves less with it.
  const pairedOurs: Usage[] = [];
  const pairedTheirs: Usage[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const [o, t] = await Promise.all([harness(url, LONG_S), cannon(url, LONG_S)]);
    pairedOurs.push(o);
    pairedTheirs.push(t);
  }
  console.log(
    `Side by side (both tools started together), ${ROUNDS} rounds: CPU harness / autocannon ` +
      pairedOurs.map((o, i) => `${o.cpuS.toFixed(2)} / ${pairedTheirs[i]!.cpuS.toFixed(2)} s`).join(', ') +
      `: ${(sum(pairedOurs, (u) => u.cpuS) / sum(pairedTheirs, (u) => u.cpuS)).toFixed(2)}x (goal <= 1.3x)`,
  );

  const shortOurs: Usage[] = [];
  const shortTheirs: Usage[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    shortOurs.push(await harness(url, SHORT_S));
    shortTheirs.push(await cannon(url, SHORT_S));
  }
  const wall = (xs: Usage[]) => sum(xs, (u) => u.wallS) / xs.length;
  console.log(
    `A ${SHORT_S} s run, wall time exec to exit (mean of ${ROUNDS}): harness ${wall(shortOurs).toFixed(2)} s, ` +
      `autocannon ${wall(shortTheirs).toFixed(2)} s: ${(wall(shortOurs) / wall(shortTheirs)).toFixed(2)}x (goal <= 1.1x)`,
  );
  console.log(`load average after: ${load()}`);
} finally {
  server.kill();
}
