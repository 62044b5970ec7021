/**
 * Other users' latency under a login flood: the median latency of `POST /api/resource/stock.Item` by a signed-in
 * Stock User (API key), alone and while a second client floods `POST /api/method/login` with wrong passwords for
 * one account, against the real app on a real server in its own process (middleware chain, throttling and
 * scrypt included). The
 * ratio flood/alone is the figure to compare; login throttling is meant to keep it at or below 2.
 *
 * Run: `npm run bench login-flood`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const CREATE_CONNECTIONS = 4;
const FLOOD_CONNECTIONS = 32;
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

function floodOptions(duration: number) {
  return {
    url: `${platform.url}/api/method/login`,
    method: 'POST',
    connections: FLOOD_CONNECTIONS,
    duration,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ usr: platform.victim, pwd: 'not-the-password' }),
  };
}

try {
  await autocannon({ ...createOptions, duration: 1 }); // warm-up
  const alone = await autocannon({ ...createOptions, duration: DURATION_S });
  if (alone.non2xx > 0 || alone.errors > 0) throw new Error(`creates alone: ${alone.non2xx} non-2xx`);
  const floodRun = autocannon(floodOptions(DURATION_S + 1));
  const underFlood = await autocannon({ ...createOptions, duration: DURATION_S });
  const flood = await floodRun;
  if (underFlood.non2xx > 0 || underFlood.errors > 0) {
    throw new Error(`creates under flood: ${underFlood.non2xx} non-2xx`);
  }
  const ratio = underFlood.latency.p50 / Math.max(alone.latency.p50, 0.001);
  console.log(
    `stock.Item creates, ${CREATE_CONNECTIONS} connections, ${DURATION_S} s; flood: ${FLOOD_CONNECTIONS} connections of wrong passwords for one account`,
  );
  console.log(`  creates alone        median ${alone.latency.p50} ms   p99 ${alone.latency.p99} ms`);
  console.log(
    `  creates under flood  median ${underFlood.latency.p50} ms   p99 ${underFlood.latency.p99} ms`,
  );
  console.log(
    `  flood: ${flood.requests.total} sign-ins, ${flood['2xx']} accepted, ${flood.non2xx} refused (401 then 429 too_many_attempts)`,
  );
  console.log(`  ratio under flood / alone (median): ${ratio.toFixed(2)}x (target <= 2x)`);
} finally {
  server.kill('SIGTERM');
  await once(server, 'exit');
}
