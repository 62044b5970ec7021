/**
 * One side of bench/pglite-tiering.ts, in a process of its own (V8's WASM tiering is chosen once per
 * process): opens the embedded database on disk under `argv[3]` as the server does, with V8's optimising
 * tier for its WASM when `argv[2]` is `optimizing` (`server.pglite_optimize`), else baseline code only (the
 * default), then runs the records mix of a busy server: a create and its history entry, a get, a page of 20
 * in the default order, an update. Prints one JSON line: the CPU per round once warm (this process, every
 * thread) and the resident set at the end.
 */
import { join } from 'node:path';
import { openDatabase } from '../../backend/db/open-database';

const [mode, dir, warmArg, roundsArg] = process.argv.slice(2);
const WARM = Number(warmArg ?? 2_000);
const ROUNDS = Number(roundsArg ?? 3_000);

const db = await openDatabase({ dataDir: join(dir!, mode!), optimizeWasm: mode === 'optimizing' });
await db.exec(`CREATE TABLE IF NOT EXISTS bench_history (
  id bigserial PRIMARY KEY, doctype text, name text, changes jsonb, at timestamptz DEFAULT now())`);
// A data directory used by an earlier run of this side keeps its cluster (created outside the timed process)
// and starts without records.
await db.exec("DELETE FROM records WHERE doctype = 'bench.Lead'; TRUNCATE bench_history");
let n = 0;
async function round(): Promise<void> {
  n++;
  const name = `LEAD-${n}`;
  await db.query('INSERT INTO records (doctype, name, data) VALUES ($1, $2, $3::jsonb)', [
    'bench.Lead',
    name,
    JSON.stringify({ lead_name: `Lead ${n}`, source: 'Website', email: `lead${n}@example.com` }),
  ]);
  await db.query('INSERT INTO bench_history (doctype, name, changes) VALUES ($1, $2, $3::jsonb)', [
    'bench.Lead',
    name,
    '[{"field":"lead_name"}]',
  ]);
  await db.query('SELECT name, data, creation, modified FROM records WHERE doctype = $1 AND name = $2', [
    'bench.Lead',
    `LEAD-${Math.max(1, n - 5)}`,
  ]);
  await db.query(
    'SELECT name, data, creation, modified FROM records WHERE doctype = $1 ORDER BY modified DESC, name LIMIT 20',
    ['bench.Lead'],
  );
  await db.query('UPDATE records SET data = $3::jsonb, modified = now() WHERE doctype = $1 AND name = $2', [
    'bench.Lead',
    `LEAD-${Math.max(1, n - 3)}`,
    JSON.stringify({ lead_name: `Lead ${n}`, source: 'Call' }),
  ]);
}
for (let i = 0; i < WARM; i++) await round();
const before = process.cpuUsage();
for (let i = 0; i < ROUNDS; i++) await round();
const cpu = process.cpuUsage(before);
console.log(
  JSON.stringify({
    mode,
    cpuMsPerRound: (cpu.user + cpu.system) / 1000 / ROUNDS,
    rssMb: process.memoryUsage().rss / 1e6,
  }),
);
await db.close();
