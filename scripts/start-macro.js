#!/usr/bin/env node
// `npm run start:macro`: the platform in MACROSERVICE mode on one machine. Starts a private nats-server (a
// free port, a temporary JetStream store) unless PLATFORM_NATS_URL names one, then the gateway (PORT, default
// 8000) and one service process per sample app (crm, stock, support; each on a free port), prints the Desk URL, and
// stops everything on Ctrl-C / SIGTERM. Exit codes: 0 stopped by a signal, 1 a process failed to start or died.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = (process.env.PLATFORM_MACRO_SERVICES ?? 'crm,stock,support').split(',').filter(Boolean);
const children = [];
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

/**
 * Starts a child whose output lines are prefixed with its name; `onLine` sees each line, and lines for
 * which `shown` is false are not relayed.
 */
function start(name, command, args, env, onLine = () => {}, shown = () => true) {
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const relay = (stream, out) => {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const line of lines) {
        if (shown(line)) out.write(`[${name}] ${line}\n`);
        onLine(line);
      }
    });
  };
  relay(child.stdout, process.stdout);
  relay(child.stderr, process.stderr);
  child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`start:macro: ${name} exited (${signal ?? `code ${code}`}); stopping everything.`);
    void shutdown(1);
  });
  children.push({ name, child });
  return child;
}

function stopChild({ child }) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
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
  const order = [...children].reverse();
  const nats = order.filter((c) => c.name === 'nats');
  const rest = order.filter((c) => c.name !== 'nats');
  await Promise.all(rest.filter((c) => c.name !== 'gateway').map(stopChild));
  await Promise.all(rest.filter((c) => c.name === 'gateway').map(stopChild));
  await Promise.all(nats.map(stopChild));
  if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

const env = { ...process.env, PLATFORM_MODE: 'macroservice' };
// One secret for the gateway and its services (requests they exchange are signed with it).
env.PLATFORM_INTERNAL_SECRET ||= randomBytes(32).toString('base64url');
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
  // Only nats-server's warnings and errors are relayed; its banner is noise here.
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
  [bin, 'serve', '--mode', 'macroservice', '--build-missing'],
  env,
  (line) => {
    const match = /on (http\S+\/desk\/)/.exec(line);
    if (match) console.log(`\n  Desk (MACROSERVICE): ${match[1]}\n`);
  },
);
for (const app of SERVICES) {
  start(app, process.execPath, [bin, 'serve', '--mode', 'macroservice', '--app', app, '--port', '0'], env);
}
