/**
 * What personal data at rest costs the server (docs/security.md#personal-data-at-rest), as ratios measured
 * in one run: CPU per create and per read of a DocType whose `email` and `phone` are flagged `pii`
 * (encrypted with a fresh data key each, blind-indexed, and for a reader with `read_pii` decrypted and an
 * audit entry appended), against the same DocType without the flags.
 *
 * Each side's server is a process of its own (this file with `--worker`): the real MONOLITH app over the
 * embedded database in a fresh data directory, as `m serve` runs by default (a write waits for its WAL sync,
 * a revealing read for its audit entry's, docs/operators.md#the-audit-log), listening on 127.0.0.1. The load
 * comes over HTTP from a generator in another process (bench/support/post-generator.mjs), as an
 * Administrator's API key: `OPS` creates, then `OPS` single-record reads `CONNECTIONS` at a time, then the
 * same reads one at a time. The server's CPU over each load is read from `/proc/<pid>/stat` (every thread of
 * the process) just before the load starts and just after it ends, and `/usr/bin/time` measures the whole
 * process from start to exit (its CPU and peak resident set, start-up and the final checkpoint included).
 * Both sides' servers run at once, their loads alternating, over `ROUNDS` rounds; printed are the medians,
 * and as the ratio the median of each round's own (with their range).
 *
 * Reads one at a time are printed as well, with the time each took from the generator's side: between them
 * the server idles, so each read starts on a cold core, and a revealing read idles a second time while its
 * audit entry is synced (docs/security.md#what-it-costs, docs/performance.md#the-audit-journals-syncs).
 *
 * A second measurement (a worker with `list`): the list latency with `LIST_ROWS` masked rows, the records
 * read by a user whose role may read the DocType but not its personal data (no `read_pii`), so every flagged
 * value is masked and none is decrypted. A worker stores `LIST_ROWS` records, then lists them all (pages of
 * 500, the largest) `LISTS` times, one request at a time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStatTicks, USER_HZ } from '../src/benchmarks/watch/proc-sampler';
import { runLoad, startGenerator } from './support/post-load';

const ROOT = join(import.meta.dirname, '..');
const OPS = 1000;
/** Requests in flight at once in the loaded phases, as in bench/encrypted-create. */
const CONNECTIONS = 16;
const ROUNDS = 5;
const SIDES = ['bench.Flagged', 'bench.Plain'] as const;
const LIST_ROWS = 1000;
const LISTS = 100;
/** The largest `limit_page_length` the data API answers (backend/data/list-query.ts). */
const PAGE = 500;
/** The role of the masked reader: may read both DocTypes, not their personal data. */
const READER_ROLE = 'Bench Reader';

/** An app whose two DocTypes differ only in the `pii` flags of `email` and `phone`. */
function writeBenchApp(dir: string): void {
  const entry = JSON.stringify(join(ROOT, 'src', 'app', 'index.ts'));
  writeFileSync(
    join(dir, 'app.ts'),
    `import { defineApp, defineDocType, z } from ${entry};
const model = (pii: boolean) =>
  z.object({
    customer_name: z.string().min(1).max(140).meta({ label: 'Name' }),
    email: z.email().max(254).meta({ label: 'Email', ...(pii ? { pii: true } : {}) }).optional(),
    phone: z.string().max(40).meta({ label: 'Phone', ...(pii ? { pii: true } : {}) }).optional(),
  });
const Flagged = defineDocType({ name: 'bench.Flagged', label: 'Flagged', titleField: 'customer_name', namePrefix: 'FLAG', model: model(true) });
const Plain = defineDocType({ name: 'bench.Plain', label: 'Plain', titleField: 'customer_name', namePrefix: 'PLAIN', model: model(false) });
const reader = [{ role: ${JSON.stringify(READER_ROLE)}, read: true }];
export default defineApp({
  name: 'bench',
  label: 'Bench',
  doctypes: [Flagged, Plain],
  permissions: { [Flagged.name]: reader, [Plain.name]: reader },
});
`,
  );
}

/** What a worker prints once its server listens. */
interface Ready {
  url: string;
  pid: number;
  admin: Record<string, string>;
  reader: Record<string, string>;
}

/**
 * The worker: the MONOLITH app on a fresh data directory, served on 127.0.0.1 with an Administrator's and a
 * masked reader's API keys; prints {@link Ready} and serves until its standard input closes.
 */
async function worker(appDir: string): Promise<void> {
  const { loadConfig } = await import('../backend/config/load-config');
  const { openDatabase } = await import('../backend/db/open-database');
  const { createMonolith } = await import('../backend/roots/monolith');
  const { MemoryKeyStore } = await import('../backend/security/keys/memory-key-store');
  const { startServer } = await import('../backend/server');
  const config = loadConfig({
    env: {},
    overrides: {
      apps: [appDir],
      'security.payload_encryption.mode': 'disabled',
      // The limiter stays in the chain but cannot trigger: one client sends far more than a real one would.
      'security.rate_limit.max_requests': 1_000_000_000,
    },
  });
  // On disk, as a server runs by default: each write waits for its WAL sync, a reveal for its audit entry's.
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-at-rest-data-'));
  const database = await openDatabase({ dataDir });
  const keys = await MemoryKeyStore.create({ graceMs: 86_400_000 });
  const { app, ctx, close } = await createMonolith(config, { log: () => {}, database, keys });
  const server = await startServer(app, { host: '127.0.0.1', port: 0 });
  const admin = await ctx.security.auth.generateApiKey('Administrator');
  await ctx.security.users.addUser('bench-reader', 'bench-reader-password', [READER_ROLE]);
  const reader = await ctx.security.auth.generateApiKey('bench-reader');
  const token = (k: { api_key: string; api_secret: string }) => `token ${k.api_key}:${k.api_secret}`;
  const ready: Ready = {
    url: server.url,
    pid: process.pid,
    admin: { authorization: token(admin), 'content-type': 'application/json' },
    reader: { authorization: token(reader) },
  };
  console.log(JSON.stringify(ready));
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once('end', resolve));
  await server.close();
  await close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/** A whole worker process from start to exit: CPU seconds (user + system) and peak resident set. */
interface Whole {
  cpuS: number;
  peakMb: number;
}

/** A running worker: its server, and what `/usr/bin/time` measured of it once stopped. */
interface Worker extends Ready {
  /** The worker's CPU so far, every thread (ms, from `/proc/<pid>/stat`). */
  cpuMs(): number;
  /** Stops the worker; resolves to what `/usr/bin/time` measured of the whole process. */
  stop(): Promise<Whole>;
}

/** Starts a worker under /usr/bin/time and waits until its server listens. */
async function startWorker(appDir: string): Promise<Worker> {
  const child = spawn(
    '/usr/bin/time',
    [
      '-f',
      'TIME %U %S %M',
      process.execPath,
      '--import',
      'tsx',
      join(ROOT, 'bench', 'at-rest.ts'),
      '--worker',
      appDir,
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const ready = await new Promise<Ready>((resolve, reject) => {
    const poll = setInterval(() => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearInterval(poll);
        resolve(JSON.parse(line) as Ready);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(poll);
      reject(new Error(`worker exited (${code}):\n${stdout}\n${stderr}`));
    });
  });
  return {
    ...ready,
    cpuMs: () => (parseStatTicks(readFileSync(`/proc/${ready.pid}/stat`, 'utf8')) * 1000) / USER_HZ,
    async stop() {
      child.stdin.end();
      const code = await exited;
      const time = /TIME ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      if (code !== 0 || !time) throw new Error(`worker failed (${code}):\n${stdout}\n${stderr}`);
      return { cpuS: Number(time[1]) + Number(time[2]), peakMb: Number(time[3]) / 1024 };
    },
  };
}

/** `count` create bodies, each a different customer. */
function createBodies(count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      customer_name: `Customer ${i}`,
      email: `customer${i}@example.com`,
      phone: `+44 20 7946 ${String(i).padStart(4, '0')}`,
    }),
  );
}

/** Stores `count` records of `doctype` through `w` (16 at a time); returns their paths. */
async function store(generator: ChildProcess, w: Worker, doctype: string, count: number) {
  const path = `/api/resource/${doctype}`;
  const load = { url: w.url, path, headers: w.admin, bodies: createBodies(count), status: 201 };
  const created = await runLoad(generator, { ...load, connections: CONNECTIONS }, w.cpuMs);
  const names: string[] = [];
  for (let start = 0; start < count; start += PAGE) {
    const res = await fetch(
      `${w.url}${path}?fields=["name"]&limit_start=${start}&limit_page_length=${PAGE}`,
      {
        headers: w.admin,
      },
    );
    if (res.status !== 200) throw new Error(`list answered ${res.status}`);
    for (const r of ((await res.json()) as { data: { name: string }[] }).data) names.push(r.name);
  }
  if (names.length !== count) throw new Error(`stored ${names.length} of ${count} records`);
  return { created, paths: names.map((n) => `${path}/${encodeURIComponent(n)}`) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const appDir = mkdtempSync(join(tmpdir(), 'bench-at-rest-'));
  const generator = startGenerator();
  try {
    writeBenchApp(appDir);
    type Ops = { create: number[]; read: number[]; readOne: number[]; readOneWall: number[]; whole: Whole[] };
    const figures = new Map<string, Ops>();
    for (const side of SIDES) {
      figures.set(side, { create: [], read: [], readOne: [], readOneWall: [], whole: [] });
    }
    for (let round = 1; round <= ROUNDS; round++) {
      // Both sides' servers run at once and their loads alternate, so each pair of figures is taken under
      // the same conditions; the order is reversed every other round.
      const order = round % 2 ? SIDES : [...SIDES].reverse();
      const workers = new Map<string, Worker>();
      const paths = new Map<string, string[]>();
      for (const side of order) workers.set(side, await startWorker(appDir));
      for (const side of order) {
        const stored = await store(generator, workers.get(side)!, side, OPS);
        figures.get(side)!.create.push(stored.created.cpuMs / OPS);
        paths.set(side, stored.paths);
      }
      for (const [phase, connections] of [
        ['read', CONNECTIONS],
        ['readOne', 1],
      ] as const) {
        for (const side of order) {
          const w = workers.get(side)!;
          const gets = { url: w.url, paths: paths.get(side)!, headers: w.admin, connections };
          const load = await runLoad(generator, gets, w.cpuMs);
          figures.get(side)![phase].push(load.cpuMs / OPS);
          // One at a time, a read's wall time is what its reader waits: the reveal's sync included.
          if (phase === 'readOne') figures.get(side)!.readOneWall.push(load.wallMs / OPS);
        }
      }
      for (const side of order) figures.get(side)!.whole.push(await workers.get(side)!.stop());
      console.log(`round ${round}/${ROUNDS} done`);
    }
    const flagged = figures.get('bench.Flagged')!;
    const plain = figures.get('bench.Plain')!;
    const wholeRows = (label: string, a: Whole[], b: Whole[]) => {
      row(
        `${label}: CPU (s)`,
        a.map((w) => w.cpuS),
        b.map((w) => w.cpuS),
      );
      row(
        `${label}: peak RSS (MB)`,
        a.map((w) => w.peakMb),
        b.map((w) => w.peakMb),
      );
    };
    // The ratio is the median of each round's own (the two sides measured moments apart, under the same
    // conditions), with the lowest and highest beside it: the machine's speed drifts between rounds.
    const row = (label: string, a: number[], b: number[]) => {
      const ratios = a.map((x, i) => x / b[i]!);
      const spread = `(${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
      console.log(
        `${label.padEnd(52)} ${median(a).toFixed(3).padStart(8)} ${median(b).toFixed(3).padStart(8)} ${median(ratios).toFixed(2).padStart(7)}x ${spread}`,
      );
    };
    console.log(
      `\n${OPS} creates and ${OPS} reads over HTTP, ${CONNECTIONS} at a time, then the ${OPS} reads one at a time;` +
        ` server CPU (/proc/<pid>/stat, every thread), medians of ${ROUNDS} rounds (ms); the ratio is the median of the rounds' own, their range beside it`,
    );
    console.log(`${''.padEnd(52)} ${'flagged'.padStart(8)} ${'plain'.padStart(8)} ${'ratio'.padStart(8)}`);
    row(`CPU per create, ${CONNECTIONS} at a time`, flagged.create, plain.create);
    row(`CPU per revealed read, ${CONNECTIONS} at a time`, flagged.read, plain.read);
    row('CPU per revealed read, one at a time', flagged.readOne, plain.readOne);
    row('time per revealed read, one at a time (wall)', flagged.readOneWall, plain.readOneWall);
    wholeRows('whole server process, start to exit', flagged.whole, plain.whole);

    const listed = new Map<string, { wall: number[]; cpu: number[]; whole: Whole[] }>();
    for (const side of SIDES) listed.set(side, { wall: [], cpu: [], whole: [] });
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? SIDES : [...SIDES].reverse();
      const workers = new Map<string, Worker>();
      for (const side of order) workers.set(side, await startWorker(appDir));
      for (const side of order) await store(generator, workers.get(side)!, side, LIST_ROWS);
      for (const side of order) {
        const w = workers.get(side)!;
        const paths: string[] = [];
        for (let i = 0; i < LISTS; i++) {
          for (let start = 0; start < LIST_ROWS; start += PAGE) {
            paths.push(`/api/resource/${side}?limit_start=${start}&limit_page_length=${PAGE}`);
          }
        }
        const lists = await runLoad(
          generator,
          { url: w.url, paths, headers: w.reader, connections: 1 },
          w.cpuMs,
        );
        await assertMasked(w, side);
        listed.get(side)!.wall.push(lists.wallMs / LISTS);
        listed.get(side)!.cpu.push(lists.cpuMs / LISTS);
      }
      for (const side of order) listed.get(side)!.whole.push(await workers.get(side)!.stop());
      console.log(`list round ${round}/${ROUNDS} done`);
    }
    const flaggedLists = listed.get('bench.Flagged')!;
    const plainLists = listed.get('bench.Plain')!;
    console.log(
      `\nA list of ${LIST_ROWS} rows (pages of ${PAGE}) read over HTTP by a user without read_pii, one request at a time, ${LISTS} lists per process, medians of ${ROUNDS} rounds (ms)`,
    );
    console.log(`${''.padEnd(52)} ${'masked'.padStart(8)} ${'plain'.padStart(8)} ${'ratio'.padStart(8)}`);
    row('list latency (wall)', flaggedLists.wall, plainLists.wall);
    row('server CPU per list', flaggedLists.cpu, plainLists.cpu);
    wholeRows('whole server process, start to exit', flaggedLists.whole, plainLists.whole);
  } finally {
    generator.kill();
    rmSync(appDir, { recursive: true, force: true });
  }
}

/** Throws unless the masked reader's page of `doctype` masks exactly the flagged fields. */
async function assertMasked(w: Worker, doctype: string): Promise<void> {
  const res = await fetch(`${w.url}/api/resource/${doctype}?limit_page_length=1`, { headers: w.reader });
  const page = (await res.json()) as { masked_fields?: string[] };
  const expected = doctype === 'bench.Flagged' ? 'email,phone' : '';
  if (res.status !== 200 || (page.masked_fields ?? []).join() !== expected) {
    throw new Error(`the bench reader was shown ${doctype} with masked fields ${page.masked_fields}`);
  }
}

if (process.argv[2] === '--worker') {
  await worker(process.argv[3]!);
} else {
  await main();
}
