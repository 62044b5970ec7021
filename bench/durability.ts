/**
 * What durable commits cost (docs/performance.md#durable-commits): record inserts per second on the embedded
 * database on disk with every commit's WAL synced before it returns (the default) and with
 * `server.risk_losing_writes_on_power_loss`, one at a time and 16 in flight (where concurrent commits share
 * a sync). Both databases live in one temporary directory on the same disk; rounds alternate between them so
 * drift of the machine affects both. Prints creates/s of each and their ratio, measured in this run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../backend/db/database';
import { openDatabase } from '../backend/db/open-database';

const SEQUENTIAL = Number(process.env.BENCH_DURABILITY_SEQUENTIAL ?? 300);
const CONCURRENT = Number(process.env.BENCH_DURABILITY_CONCURRENT ?? 1_200);
const IN_FLIGHT = 16;
const ROUNDS = 3;

let counter = 0;
function insert(db: Database): Promise<unknown> {
  counter++;
  return db.query(`INSERT INTO records (doctype, name, data) VALUES ('bench.Lead', $1, $2)`, [
    `LEAD-${counter}`,
    JSON.stringify({ lead_name: `Lead ${counter}`, source: 'Website' }),
  ]);
}

async function sequential(db: Database, n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) await insert(db);
  return (n / (performance.now() - started)) * 1000;
}

async function concurrent(db: Database, n: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < n) {
        next++;
        await insert(db);
      }
    }),
  );
  return (n / (performance.now() - started)) * 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const temp = mkdtempSync(join(tmpdir(), 'bench-durability-'));
try {
  const synced = await openDatabase({ dataDir: join(temp, 'synced') });
  const unsynced = await openDatabase({ dataDir: join(temp, 'unsynced'), unsyncedCommits: true });
  const results = {
    synced: { seq: [] as number[], conc: [] as number[] },
    unsynced: { seq: [] as number[], conc: [] as number[] },
  };
  // Warm-up: the first inserts compile the WASM hot paths and extend the tables.
  await sequential(synced, 50);
  await sequential(unsynced, 50);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, db] of [
      ['synced', synced],
      ['unsynced', unsynced],
    ] as const) {
      results[name].seq.push(await sequential(db, SEQUENTIAL));
      results[name].conc.push(await concurrent(db, CONCURRENT));
    }
  }
  await synced.close();
  await unsynced.close();
  const row = (label: string, s: number, u: number) =>
    console.log(
      `${label.padEnd(22)} synced ${s.toFixed(0).padStart(6)}/s   unsynced ${u.toFixed(0).padStart(6)}/s   synced/unsynced ${(s / u).toFixed(2)}x`,
    );
  console.log(`record inserts on the embedded database on disk (median of ${ROUNDS} alternating rounds)`);
  row('one at a time', median(results.synced.seq), median(results.unsynced.seq));
  row(`${IN_FLIGHT} in flight`, median(results.synced.conc), median(results.unsynced.conc));
} finally {
  rmSync(temp, { recursive: true, force: true });
}
