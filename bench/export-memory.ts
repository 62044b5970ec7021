/**
 * Whether a CSV export's memory grows with its length: a real `m serve` whose stock.Item holds 100,000
 * records exports all of them (`GET /api/resource/stock.Item/export.csv`, docs/http-api.md#csv-export), and
 * the server's resident set is read from /proc every 50 ms: its growth is the peak during the export minus
 * the resident set just before. The client stops reading for a while after the first megabyte, so a server
 * that ignored backpressure would pile the rest up in that pause. On PGlite (the database inside the
 * server's process, so its memory counts too) and on a PostgreSQL server. The goal is under 50 MB.
 *
 * Run: `npm run bench export-memory`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../backend/db/open-database';
// Registers the record indexes' migration, so the database is created as `m serve` creates it.
import '../backend/db/record-indexes';
import { BENCH_ADMIN_PASSWORD, startDeskServer } from './support/desk-server';
import { startPostgres } from './support/postgres-server';

const ROWS = 100_000;
const GOAL_MB = 50;
/** The client's pause after the first megabyte. */
const PAUSE_MS = 3_000;
const IDLE_SETTLE_MS = 2_000;

/** `VmRSS` of a process, in MB. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
}

/** One export measured: rows and bytes received, resident set before and at its peak, seconds taken. */
interface Measured {
  rows: number;
  bytes: number;
  before: number;
  peak: number;
  seconds: number;
}

async function exportOnce(dataDir: string, databaseUrl?: string): Promise<Measured> {
  const db = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir });
  await db.exec(`
    INSERT INTO records (doctype, name, data, creation, modified)
    SELECT 'stock.Item', 'ITEM-' || lpad(i::text, 6, '0'),
           jsonb_build_object('item_code', 'CODE-' || i, 'item_name', 'Item ' || i || ', boxed', 'quantity', i % 100,
                              'price', i % 1000),
           timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second'
      FROM generate_series(1, ${ROWS}) AS i;
    INSERT INTO naming_series (prefix, current) VALUES ('ITEM', ${ROWS});
  `);
  await db.close();
  const server = await startDeskServer({
    dataDir,
    timeoutMs: 300_000,
    env: databaseUrl ? { PLATFORM_DATABASE_URL: databaseUrl } : {},
  });
  try {
    const login = await fetch(`${server.origin}/api/method/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ usr: 'Administrator', pwd: BENCH_ADMIN_PASSWORD }),
    });
    if (!login.ok) throw new Error(`login answered ${login.status}`);
    const cookie = `sid=${/sid=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1]}`;
    // A first list warms the code paths and the planner's statistics, which are not the export's memory.
    await (await fetch(`${server.origin}/api/resource/stock.Item`, { headers: { cookie } })).arrayBuffer();
    await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
    const before = rssMb(server.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(server.pid));
    }, 50);
    const started = performance.now();
    let bytes = 0;
    let rows = 0;
    let paused = false;
    try {
      const res = await fetch(`${server.origin}/api/resource/stock.Item/export.csv`, { headers: { cookie } });
      if (!res.ok || !res.body) throw new Error(`export answered ${res.status}`);
      for await (const chunk of res.body) {
        bytes += chunk.byteLength;
        for (const byte of chunk) if (byte === 10) rows++;
        if (!paused && bytes > 1_000_000) {
          paused = true;
          await new Promise((r) => setTimeout(r, PAUSE_MS));
        }
      }
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssMb(server.pid));
    return { rows: rows - 1, bytes, before, peak, seconds: (performance.now() - started) / 1000 };
  } finally {
    await server.stop();
  }
}

async function run(label: string, databaseUrl?: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-export-memory-'));
  try {
    const m = await exportOnce(dataDir, databaseUrl);
    if (m.rows !== ROWS) throw new Error(`the export held ${m.rows} rows, not ${ROWS}`);
    const growth = m.peak - m.before;
    console.log(
      `  ${label.padEnd(10)} export of ${m.rows.toLocaleString('en')} rows (${(m.bytes / 1e6).toFixed(1)} MB in ` +
        `${m.seconds.toFixed(1)} s): server RSS ${m.before.toFixed(0)} MB before, ${m.peak.toFixed(0)} MB peak: ` +
        `+${growth.toFixed(1)} MB (goal < ${GOAL_MB} MB)${growth < GOAL_MB ? '' : '  OVER'}`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(
  `CSV export of stock.Item, all ${ROWS.toLocaleString('en')} rows, read with a ${PAUSE_MS / 1000} s pause ` +
    "after the first MB; the server process's resident set from /proc:",
);
await run('PGlite');
const postgres = await startPostgres();
if (!postgres) {
  console.log('  PostgreSQL: skipped (no PostgreSQL binaries installed)');
} else {
  try {
    await run('PostgreSQL', postgres.createDatabase('export_memory'));
  } finally {
    await postgres.stop();
  }
}
