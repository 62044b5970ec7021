/**
 * Other users' latency under a login flood: the median latency of `POST /api/resource/stock.Item` by a signed-in
 * Stock User (API key), alone and while a second client floods `POST /api/method/login` with wrong passwords for
 * one account, against the real app on a real server in its own process (middleware chain, throttling and
 * scrypt included). The
 * ratio flood/alone is the figure to compare; login throttling is meant to keep it at or below 2. Two floods:
 * 32 connections, and more connections than the server holds refusals for at once (docs/security.md#login-throttling),
 * so that half of them are answered as fast as the server can. The server's peak resident set is printed
 * after each.
 *
 * Run: `npm run bench login-flood`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const CREATE_CONNECTIONS = 4;
/** Flood sizes: a few connections, and twice the refusals the server holds at once (1,024). */
const FLOOD_CONNECTIONS = [32, 2048];
const DURATION_S = 6;

// The server runs in its own process, as deployed: the generator must not share its event loop.
const server = spawn(
  process.execPath,
  ['--import', 'tsx', join(import.meta.dirname, 'support', 'login-flood-server.ts')],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const [line] = (await once(createInterface({ input: server.stdout! }), 'line')) as [string];
const platform = JSON.parse(line) as { url: string; stockUserAuthorization: string; victim: string };
const createUrl = `${platform.url}/api/resource/stock.Item`;
let created = 0;
const createOptions = {
  url: createUrl,
  method: 'POST',
  connections: CREATE_CONNECTIONS,
  headers: { authorization: platform.stockUserAuthorization, 'content-type': 'application/json' },
  // `item_code` is unique: every create sends a new one.
  requests: [
    {
      setupRequest: (request: { body?: string }) => {
        request.body = JSON.stringify({
          item_code: `BENCH-${++created}`,
          item_name: 'Bench item',
          quantity: 1,
          price: 1,
        });
        return request;
      },
    },
  ],
};

/**
 * Floods sign-ins from a process of its own (autocannon's command line), so the creates' client does not
 * share an event loop with thousands of flood connections; resolves to autocannon's JSON result.
 */
async function flood(connections: number, duration: number) {
  const child = spawn(
    process.execPath,
    [
      join(import.meta.dirname, '..', 'node_modules', 'autocannon', 'autocannon.js'),
      '--json',
      '-c',
      String(connections),
      '-d',
      String(duration),
      '-m',
      'POST',
      '-H',
      'content-type=application/json',
      '-b',
      JSON.stringify({ usr: platform.victim, pwd: 'not-the-password' }),
      `${platform.url}/api/method/login`,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the flood exited with ${code}`);
  return JSON.parse(out) as { requests: { total: number }; '2xx': number; non2xx: number };
}

/** The process's peak resident set so far (`VmHWM`, MB). */
function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 1024);
}

try {
  await autocannon({ ...createOptions, duration: 1 }); // warm-up
  const alone = await autocannon({ ...createOptions, duration: DURATION_S });
  if (alone.non2xx > 0 || alone.errors > 0) throw new Error(`creates alone: ${alone.non2xx} non-2xx`);
  console.log(`stock.Item creates, ${CREATE_CONNECTIONS} connections, ${DURATION_S} s`);
  console.log(`  creates alone        median ${alone.latency.p50} ms   p99 ${alone.latency.p99} ms`);
  console.log(`  server peak RSS ${peakRssMb(server.pid!)} MB`);
  for (const connections of FLOOD_CONNECTIONS) {
    const floodRun = flood(connections, DURATION_S + 1);
    const underFlood = await autocannon({ ...createOptions, duration: DURATION_S });
    const flooded = await floodRun;
    if (underFlood.non2xx > 0 || underFlood.errors > 0) {
      throw new Error(`creates under flood: ${underFlood.non2xx} non-2xx`);
    }
    const ratio = underFlood.latency.p50 / Math.max(alone.latency.p50, 0.001);
    console.log(`flood: ${connections} connections of wrong passwords for one account`);
    console.log(
      `  creates under flood  median ${underFlood.latency.p50} ms   p99 ${underFlood.latency.p99} ms`,
    );
    console.log(
      `  flood: ${flooded.requests.total} sign-ins, ${flooded['2xx']} accepted, ${flooded.non2xx} refused (401 then 429 too_many_attempts)`,
    );
    console.log(`  server peak RSS ${peakRssMb(server.pid!)} MB`);
    console.log(`  ratio under flood / alone (median): ${ratio.toFixed(2)}x (target <= 2x)`);
  }
} finally {
  server.kill('SIGTERM');
  await once(server, 'exit');
}
