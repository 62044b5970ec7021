/**
 * Whether the default list costs more as the table grows: the CPU per `GET /api/resource/stock.Item` (no
 * filters, `modified desc`, 20 rows and the total) of a real `m serve` whose DocType holds 100,000 records,
 * over the same of one holding 1,000, on PGlite and on a PostgreSQL server. Whole processes are measured
 * from /proc: the server's, and on PostgreSQL also the database server's (postmaster and backends). The two
 * servers of a database run side by side and are measured in alternating rounds, so both see the same
 * machine. The goal is at most 1.3x (docs/performance.md#lists-on-large-tables).
 *
 * Run: `npm run bench list-growth`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../backend/db/database';
import { openDatabase } from '../backend/db/open-database';
// Registers the record indexes' migration, so the database is created as `m serve` creates it.
import '../backend/db/record-indexes';
import { BENCH_ADMIN_PASSWORD, startDeskServer } from './support/desk-server';
import { startPostgres } from './support/postgres-server';

const SIZES = [1_000, 100_000] as const;
const ROUNDS = 3;
/** Measured requests per round and warm-up requests per server (`BENCH_LIST_REQUESTS`, `BENCH_LIST_WARMUP`). */
const REQUESTS_PER_ROUND = Number(process.env.BENCH_LIST_REQUESTS ?? 600);
const CONCURRENCY = 4;
const WARMUP = Number(process.env.BENCH_LIST_WARMUP ?? 200);
/** Kernel clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A running server with a DocType of `size` records. */
interface Target {
  size: number;
  url: string;
  headers: Record<string, string>;
  /** The processes whose CPU is this target's. */
  pids: () => number[];
  stop(): Promise<void>;
}

/** Fills stock.Item with `size` valid records, created and modified a second apart. */
async function load(db: Database, size: number): Promise<void> {
  await db.exec(`
    INSERT INTO records (doctype, name, data, creation, modified)
    SELECT 'stock.Item', 'ITEM-' || lpad(i::text, 6, '0'),
           jsonb_build_object('item_code', 'CODE-' || i, 'item_name', 'Item ' || i, 'quantity', i % 100, 'price', i % 1000),
           timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
      FROM generate_series(1, ${size}) AS i;
    INSERT INTO naming_series (prefix, current) VALUES ('ITEM', ${size});
  `);
}

/** User plus system CPU seconds of the processes, read from /proc/<pid>/stat. */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // A backend that exited between listing and reading: its time is gone from both readings.
    }
  }
  return ticks / TICKS_PER_SECOND;
}

/** The PostgreSQL server listening on `port` (its postmaster) and its children, from /proc. */
function postgresPids(port: number): number[] {
  const all = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  const parentOf = new Map<number, number>();
  let postmaster: number | undefined;
  for (const dir of all) {
    try {
      const stat = readFileSync(`/proc/${dir}/stat`, 'utf8');
      parentOf.set(Number(dir), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      const args = readFileSync(`/proc/${dir}/cmdline`, 'utf8').split('\0');
      const p = args.indexOf('-p');
      if (args[0]?.endsWith('/postgres') && p >= 0 && args[p + 1] === String(port)) postmaster = Number(dir);
    } catch {
      // Gone while listing.
    }
  }
  if (postmaster === undefined) return [];
  return [postmaster, ...[...parentOf].filter(([, parent]) => parent === postmaster).map(([pid]) => pid)];
}

async function start(size: number, databaseUrl?: string): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-list-growth-'));
  const db = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir });
  await load(db, size);
  await db.close();
  const server = await startDeskServer({
    dataDir,
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
  const port = databaseUrl ? Number(new URL(databaseUrl).port) : undefined;
  return {
    size,
    url: `${server.origin}/api/resource/stock.Item`,
    headers: { cookie: `sid=${sid}` },
    pids: () => [server.pid, ...(port ? postgresPids(port) : [])],
    async stop() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Sends `count` default-list requests, `CONCURRENCY` at a time, checking each answer. */
async function drive(target: Target, count: number): Promise<void> {
  let left = count;
  const worker = async () => {
    while (left-- > 0) {
      const res = await fetch(target.url, { headers: target.headers });
      const body = (await res.json()) as { data: unknown[]; total: number };
      if (!res.ok || body.data.length !== 20) throw new Error(`list answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** CPU milliseconds per request of each target, over alternating rounds. */
async function measure(targets: Target[]): Promise<number[]> {
  for (const target of targets) await drive(target, WARMUP);
  const used = targets.map(() => 0);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of targets.entries()) {
      const before = cpuSeconds(target.pids());
      await drive(target, REQUESTS_PER_ROUND);
      used[i]! += cpuSeconds(target.pids()) - before;
    }
  }
  return used.map((seconds) => (seconds * 1000) / (ROUNDS * REQUESTS_PER_ROUND));
}

async function run(label: string, databaseUrl?: (size: number) => string): Promise<void> {
  const targets: Target[] = [];
  try {
    for (const size of SIZES) targets.push(await start(size, databaseUrl?.(size)));
    const [small, large] = await measure(targets);
    console.log(
      `  ${label.padEnd(10)} CPU per default list: ${small!.toFixed(2)} ms at ${SIZES[0].toLocaleString('en')} rows, ` +
        `${large!.toFixed(2)} ms at ${SIZES[1].toLocaleString('en')} rows: ${(large! / small!).toFixed(2)}x (goal <= 1.3x)`,
    );
  } finally {
    for (const target of targets) await target.stop();
  }
}

console.log(
  `Default list (no filters, modified desc, 20 rows and the total), server CPU per request, whole processes, ` +
    `${ROUNDS} x ${REQUESTS_PER_ROUND} requests at ${CONCURRENCY} concurrent:`,
);
await run('PGlite');
const postgres = await startPostgres();
if (!postgres) {
  console.log('  PostgreSQL: skipped (no PostgreSQL binaries installed)');
} else {
  try {
    await run('PostgreSQL', (size) => postgres.createDatabase(`list_growth_${size}`));
  } finally {
    await postgres.stop();
  }
}
