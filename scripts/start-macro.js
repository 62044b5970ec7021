#!/usr/bin/env node
// `npm run start:macro`: the platform in MACROSERVICE mode on one machine. Starts a private nats-server (a
// free port, a temporary JetStream store) unless PLATFORM_NATS_URL names one, then the gateway (PORT, default
// 8000) and one service process per sample app (crm, stock, support; each on a free port), and prints the Desk URL.
//
// It supervises what it started: a process that dies is restarted with backoff (1 s, doubling to 30 s; back to
// 1 s once it has run for a minute) while the others keep serving. Ctrl-C / SIGTERM stops everything (services
// first, then the gateway, then NATS).
//
//   node scripts/start-macro.js [--no-build]     --no-build: skip building missing UI bundles
//
// A service's records go to a PostgreSQL server of its own when PLATFORM_DATABASE_URL_<APP> names one (e.g.
// PLATFORM_DATABASE_URL_CRM for crm): that process runs with it as its PLATFORM_DATABASE_URL; the others keep
// their embedded database in <data_dir>/services/<app> (or PLATFORM_DATABASE_URL when that is set for all).
//
// Exit codes: 0 stopped by a signal, 1 nats-server missing or not starting, or a process kept dying at once.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = (process.env.PLATFORM_MACRO_SERVICES ?? 'crm,stock,support').split(',').filter(Boolean);
const BUILD = !process.argv.includes('--no-build');
/** Restart delays: the first after 1 s, doubling up to 30 s. */
const BACKOFF_MS = { first: 1_000, max: 30_000 };
/** A process that ran this long is healthy again: its next restart waits the first delay. */
const HEALTHY_AFTER_MS = 60_000;
/** Restarts in a row of a process that died within its first seconds before giving up on everything. */
const MAX_QUICK_DEATHS = 6;
const QUICK_DEATH_MS = 10_000;

/** Every supervised process: name, how to start it, the running child, its backoff state. */
const supervised = [];
let stopping = false;
let storeDir;

function locateNatsServer() {
  const fromEnv = process.env.PLATFORM_NATS_SERVER_PATH;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const p of ['/usr/sbin/nats-server', '/usr/bin/nats-server']) if (existsSync(p)) return p;
  const which = spawnSync('which', ['nats-server'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Relays a child's output lines prefixed with its name; `onLine` sees each, `shown` filters what is relayed. */
function relay(name, stream, out, onLine, shown) {
  let rest = '';
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      if (shown(line)) out.write(`[${name}] ${line}\n`);
      onLine(line);
    }
  });
}

function launch(entry) {
  const { name, command, args, env, onLine, shown } = entry;
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  entry.child = child;
  entry.startedAt = Date.now();
  console.log(`start:macro: ${name} started (PID ${child.pid})`);
  relay(name, child.stdout, process.stdout, onLine, shown);
  relay(name, child.stderr, process.stderr, onLine, shown);
  child.once('exit', (code, signal) => {
    if (stopping) return;
    const ranMs = Date.now() - entry.startedAt;
    if (ranMs >= HEALTHY_AFTER_MS) {
      entry.delayMs = BACKOFF_MS.first;
      entry.quickDeaths = 0;
    }
    entry.quickDeaths = ranMs < QUICK_DEATH_MS ? entry.quickDeaths + 1 : 0;
    if (entry.quickDeaths >= MAX_QUICK_DEATHS) {
      console.error(
        `start:macro: ${name} keeps dying at start (${signal ?? `code ${code}`}); stopping everything.`,
      );
      void shutdown(1);
      return;
    }
    const delay = entry.delayMs;
    entry.delayMs = Math.min(entry.delayMs * 2, BACKOFF_MS.max);
    console.error(
      `start:macro: ${name} exited (${signal ?? `code ${code}`}); restarting ${name} in ${delay / 1000} s, the others keep serving.`,
    );
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (!stopping) launch(entry);
    }, delay);
  });
}

/** Starts and supervises a child whose output lines are prefixed with its name. */
function start(name, command, args, env, onLine = () => {}, shown = () => true) {
  const entry = { name, command, args, env, onLine, shown, delayMs: BACKOFF_MS.first, quickDeaths: 0 };
  supervised.push(entry);
  launch(entry);
  return entry;
}

function stopChild(entry) {
  if (entry.timer) clearTimeout(entry.timer);
  const { child } = entry;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  // Services first (they delete their manifests), then the gateway, then NATS.
  const services = supervised.filter((e) => e.name !== 'nats' && e.name !== 'gateway');
  await Promise.all(services.map(stopChild));
  await Promise.all(supervised.filter((e) => e.name === 'gateway').map(stopChild));
  await Promise.all(supervised.filter((e) => e.name === 'nats').map(stopChild));
  if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

const env = { ...process.env, PLATFORM_MODE: 'macroservice' };
// One secret for the gateway and its services (requests they exchange are signed with it).
env.PLATFORM_INTERNAL_SECRET ||= randomBytes(32).toString('base64url');
// The key wrapping the payload-encryption keys the gateways share in NATS KV (a private NATS starts empty).
env.PLATFORM_KEY_ENCRYPTION_KEY ||= randomBytes(32).toString('base64url');
// Its own state next to the MONOLITH one, so both modes can run from one checkout.
env.PLATFORM_DATA_DIR ||= join('.platform', 'macro');

if (!env.PLATFORM_NATS_URL) {
  const binary = locateNatsServer();
  if (!binary) {
    console.error(
      'start:macro: nats-server is not installed. Run `node scripts/ensure-system-deps.js` as root, or set PLATFORM_NATS_URL.',
    );
    process.exit(1);
  }
  const port = await freePort();
  storeDir = mkdtempSync(join(tmpdir(), 'desk-nats-'));
  // Only nats-server's warnings and errors are relayed; its banner is noise here. A restarted nats-server
  // keeps the port and the store.
  const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir];
  start('nats', binary, args, env, undefined, (line) => /\[(WRN|ERR|FTL)\]/.test(line));
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (Date.now() > deadline) {
      console.error('start:macro: nats-server did not start within 10 s.');
      await shutdown(1);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  env.PLATFORM_NATS_URL = `nats://127.0.0.1:${port}`;
  console.log(`start:macro: private NATS on ${env.PLATFORM_NATS_URL} (store ${storeDir})`);
}

const bin = join(root, 'bin', 'm.js');
start(
  'gateway',
  process.execPath,
  [bin, 'serve', '--mode', 'macroservice', ...(BUILD ? ['--build-missing'] : [])],
  env,
  (line) => {
    const match = /on (http\S+\/desk\/)/.exec(line);
    if (match) console.log(`\n  Desk (MACROSERVICE): ${match[1]}\n`);
  },
);
/** PLATFORM_DATABASE_URL_<APP>: the variable naming `app`'s own database server. */
function databaseUrlVariable(app) {
  return `PLATFORM_DATABASE_URL_${app.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

for (const app of SERVICES) {
  // Each service keeps its own records, keys and audit log: a server shared by two would mix them.
  const own = env[databaseUrlVariable(app)];
  const serviceEnv = own ? { ...env, PLATFORM_DATABASE_URL: own } : env;
  if (own)
    console.log(`start:macro: ${app} stores its records in the PostgreSQL of ${databaseUrlVariable(app)}`);
  start(
    app,
    process.execPath,
    [bin, 'serve', '--mode', 'macroservice', '--app', app, '--port', '0'],
    serviceEnv,
  );
}
