/**
 * Resident memory of a MONOLITH `m serve`, idle after start and at its peak under a reference load, with
 * PGlite and with a PostgreSQL server, against a bare Hono app on the same database doing the same list and
 * create requests (the baseline). Servers run in their own processes; this process is the load generator
 * and reads each server's `VmRSS` / `VmHWM` from /proc. See docs/performance.md#memory.
 *
 * Reference load: sign in, create `SEED` stock.Items, then `REQUESTS` list requests at concurrency
 * `CONCURRENCY` with a create every tenth request.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { stopProcess } from '../test/e2e/support/desk-target';
import { BENCH_ADMIN_PASSWORD, startDeskServer } from './support/desk-server';
import { startPostgres } from './support/postgres-server';

const SEED = 50;
const REQUESTS = 600;
const CONCURRENCY = 16;
const IDLE_SETTLE_MS = 3_000;
const root = join(import.meta.dirname, '..');

/** Whether `m serve` will run from dist/server/m.js: asks bin/m.js's own freshness rule. */
const serveFromBundle =
  spawnSync(process.execPath, [join(root, 'bin', 'm.js'), '--bundle-current'], { cwd: root }).status === 0;

/** `VmRSS` and `VmHWM` of a process, in MB. */
function rss(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** A server under measurement: where it listens, how to authenticate, how to stop it. */
interface Target {
  origin: string;
  pid: number;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

async function startPlatform(dataDir: string, databaseUrl?: string): Promise<Target> {
  const server = await startDeskServer({
    dataDir,
    // A first start creates the cluster; on a busy machine that takes longer than the default minute.
    timeoutMs: 300_000,
    env: databaseUrl ? { PLATFORM_DATABASE_URL: databaseUrl } : {},
  });
  const login = await fetch(`${server.origin}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ usr: 'Administrator', pwd: BENCH_ADMIN_PASSWORD }),
  });
  if (!login.ok) throw new Error(`login answered ${login.status}`);
  const sid = /sid=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  const { csrf_token } = (await login.json()) as { csrf_token: string };
  return {
    origin: server.origin,
    pid: server.pid,
    headers: { cookie: `sid=${sid}`, 'x-csrf-token': csrf_token, origin: server.origin },
    stop: server.stop,
  };
}

/**
 * The bare app runs the way `m serve` does: bundled when `m serve` runs from its bundle (dist/server/m.js is
 * current), else through tsx, so the loader is not what the ratio measures.
 */
function bareServerCommand(): string[] {
  if (!serveFromBundle) return ['--import', 'tsx', join(root, 'bench/support/bare-hono-server.ts')];
  const outfile = join(root, 'dist', 'bench', 'bare-hono-server.js');
  buildSync({
    entryPoints: [join(root, 'bench/support/bare-hono-server.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    outfile,
  });
  return [outfile];
}

async function startBare(dataDir: string, databaseUrl?: string): Promise<Target> {
  const env = { ...process.env, BARE_DATA_DIR: dataDir, PLATFORM_DATABASE_URL: databaseUrl ?? '' };
  const child = spawn(process.execPath, bareServerCommand(), {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /^Ready: (\S+)$/m.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
  });
  return { origin, pid: child.pid!, headers: {}, stop: () => stopProcess(child) };
}

/** Idle RSS after the settle time, then the peak RSS over the reference load. */
async function measure(target: Target): Promise<{ idle: number; peak: number }> {
  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  const idle = rss(target.pid).rss;
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss(target.pid).rss);
  }, 50);
  const list = `${target.origin}/api/resource/stock.Item?limit=20`;
  const create = (i: number) =>
    fetch(`${target.origin}/api/resource/stock.Item`, {
      method: 'POST',
      headers: { ...target.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ item_code: `MEM-${i}`, item_name: `Memory item ${i}`, quantity: i, price: i }),
    }).then(async (r) => {
      if (r.status !== 201) throw new Error(`create answered ${r.status}: ${await r.text()}`);
    });
  for (let i = 0; i < SEED; i++) await create(i);
  let sent = 0;
  const worker = async () => {
    while (sent < REQUESTS) {
      const i = sent++;
      if (i % 10 === 0) await create(SEED + i);
      else {
        const r = await fetch(list, { headers: target.headers });
        if (!r.ok) throw new Error(`list answered ${r.status}`);
        await r.arrayBuffer();
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  clearInterval(sampler);
  peak = Math.max(peak, rss(target.pid).rss);
  return { idle, peak };
}

async function run(name: string, start: () => Promise<Target>) {
  console.error(`${name}: starting`);
  const target = await start();
  console.error(`${name}: started, measuring`);
  try {
    return { name, ...(await measure(target)) };
  } finally {
    await target.stop();
  }
}

const rows: { name: string; idle: number; peak: number }[] = [];
const mb = (n: number) => `${n.toFixed(0)} MB`.padStart(7);

/** Prints a row as soon as it is measured; an `m serve` row with its ratio to the bare app measured before. */
function report(row: { name: string; idle: number; peak: number }) {
  rows.push(row);
  const bare = rows.find((r) => r.name === row.name.replace('m serve', 'bare Hono'));
  const ratio =
    bare && bare !== row
      ? `   ${(row.idle / bare.idle).toFixed(2)}x, ${(row.peak / bare.peak).toFixed(2)}x`
      : '';
  console.log(`${row.name.padEnd(24)} ${mb(row.idle)} ${mb(row.peak)}${ratio}`);
}

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  dirs.push(d);
  return d;
};
console.log(
  serveFromBundle
    ? 'm serve and the bare app run bundled (dist/server/m.js is current).'
    : 'm serve and the bare app run through tsx (no current dist/server/m.js: npm run build writes it).',
);
console.log(
  `Reference load: ${SEED} creates, then ${REQUESTS} requests (1 in 10 a create) at concurrency ${CONCURRENCY}.`,
);
console.log(`${'server'.padEnd(24)} ${'idle'.padStart(7)} ${'peak'.padStart(7)}   vs bare Hono (idle, peak)`);
const pg = await startPostgres();
try {
  report(await run('bare Hono, PGlite', () => startBare(join(fresh(), 'db'))));
  report(await run('m serve, PGlite', () => startPlatform(fresh())));
  if (pg) {
    report(await run('bare Hono, PostgreSQL', () => startBare(fresh(), pg.createDatabase('bench_bare'))));
    report(
      await run('m serve, PostgreSQL', () => startPlatform(fresh(), pg.createDatabase('bench_platform'))),
    );
  } else {
    console.log('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin): its rows are skipped.');
  }
} finally {
  await pg?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
