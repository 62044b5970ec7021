/**
 * What personal data at rest costs the server (docs/security.md#personal-data-at-rest), as ratios measured
 * in one run: CPU per create and per read of a DocType whose `email` and `phone` are flagged `pii`
 * (encrypted with a fresh data key each, blind-indexed, and for a reader with `read_pii` decrypted and an
 * audit entry appended), against the same DocType without the flags.
 *
 * Each side runs in a process of its own (this file with `--worker`): the real MONOLITH app over the
 * embedded database in a fresh data directory (as `m serve` runs by default: a write waits for its WAL sync,
 * a revealing read for its audit entry's, docs/operators.md#the-audit-log), `OPS` creates then `OPS`
 * single-record reads through `app.fetch` as Administrator (no network, so the figures are the server's
 * work alone). A worker reports its CPU per phase
 * (`process.cpuUsage`: every thread of the process), and `/usr/bin/time` measures each whole process from
 * the outside; a worker with no operations gives the start-up cost, subtracted from the whole-process
 * figure. The sides alternate over `ROUNDS` rounds and the medians are printed.
 *
 * A second measurement (a worker with `list`): the list latency with `LIST_ROWS` masked rows, the records
 * read by a user whose role may read the DocType but not its personal data (no `read_pii`), so every flagged
 * value is masked and none is decrypted. A worker stores `LIST_ROWS` records, then lists them all (pages of
 * 500, the largest) `LISTS` times, reporting wall time and CPU per list; the same worker without the lists
 * gives the cost of storing them, subtracted from the whole-process figure.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const OPS = 400;
const ROUNDS = 3;
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

/**
 * The worker: `ops` creates, then `ops` reads, of `doctype`; prints `{ create, read }` CPU milliseconds. With
 * `lists` (the list measurement), it creates `ops` records, then lists them all `lists` times as the masked
 * reader; prints `{ listCpu, listWall }` milliseconds for all the lists.
 */
async function worker(appDir: string, doctype: string, ops: number, lists?: number): Promise<void> {
  const { loadConfig } = await import('../backend/config/load-config');
  const { openDatabase } = await import('../backend/db/open-database');
  const { createMonolith } = await import('../backend/roots/monolith');
  const { MemoryKeyStore } = await import('../backend/security/keys/memory-key-store');
  const config = loadConfig({
    env: {},
    overrides: { apps: [appDir], 'security.payload_encryption.mode': 'disabled' },
  });
  // On disk, as a server runs by default: each write waits for its WAL sync, a reveal for its audit entry's.
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-at-rest-data-'));
  const database = await openDatabase({ dataDir });
  const keys = await MemoryKeyStore.create({ graceMs: 86_400_000 });
  const { app, ctx, close } = await createMonolith(config, { log: () => {}, database, keys });
  const { api_key, api_secret } = await ctx.security.auth.generateApiKey('Administrator');
  const headers = { authorization: `token ${api_key}:${api_secret}`, 'content-type': 'application/json' };
  const base = `http://127.0.0.1:${config.server.port}/api/resource/${doctype}`;
  await ctx.security.users.addUser('bench-reader', 'bench-reader-password', [READER_ROLE]);
  const readerKey = await ctx.security.auth.generateApiKey('bench-reader');
  const reader = { authorization: `token ${readerKey.api_key}:${readerKey.api_secret}` };
  const names: string[] = [];
  let cpu = process.cpuUsage();
  for (let i = 0; i < ops; i++) {
    const body = JSON.stringify({
      customer_name: `Customer ${i}`,
      email: `customer${i}@example.com`,
      phone: `+44 20 7946 ${String(i).padStart(4, '0')}`,
    });
    const res = await app.fetch(new Request(base, { method: 'POST', headers, body }));
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
    names.push(((await res.json()) as { data: { name: string } }).data.name);
  }
  const create = process.cpuUsage(cpu);
  const ms = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
  if (lists !== undefined) {
    cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < lists; i++) {
      for (let start = 0; start < ops; start += PAGE) {
        const url = `${base}?limit_start=${start}&limit_page_length=${PAGE}`;
        const res = await app.fetch(new Request(url, { headers: reader }));
        const page = (await res.json()) as { data: { email?: string }[]; masked_fields?: string[] };
        if (res.status !== 200) throw new Error(`list answered ${res.status}`);
        if (doctype === 'bench.Flagged' && page.masked_fields?.join() !== 'email,phone') {
          throw new Error('the bench reader was shown personal data');
        }
      }
    }
    const listWall = performance.now() - started;
    const listCpu = ms(process.cpuUsage(cpu));
    await close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
    console.log(JSON.stringify({ listCpu, listWall }));
    return;
  }
  cpu = process.cpuUsage();
  for (const name of names) {
    const res = await app.fetch(new Request(`${base}/${name}`, { headers }));
    if (res.status !== 200) throw new Error(`read answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
  const read = process.cpuUsage(cpu);
  await close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
  console.log(JSON.stringify({ create: ms(create), read: ms(read) }));
}

/** One worker under /usr/bin/time: its report and the whole process's CPU milliseconds. */
function spawnWorker<Report>(args: string[]): Report & { wholeMs: number } {
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      'TIME %U %S',
      process.execPath,
      '--import',
      'tsx',
      join(ROOT, 'bench', 'at-rest.ts'),
      '--worker',
      ...args,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`worker ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  const time = /TIME ([\d.]+) ([\d.]+)/.exec(r.stderr);
  const report = JSON.parse(r.stdout.trim().split('\n').pop()!) as Report;
  return { ...report, wholeMs: (Number(time![1]) + Number(time![2])) * 1000 };
}

/** A create-and-read worker of `doctype`. */
const run = (appDir: string, doctype: string, ops: number) =>
  spawnWorker<{ create: number; read: number }>([appDir, doctype, String(ops)]);

/** A list worker of `doctype`: `LIST_ROWS` records stored, then listed `lists` times by the masked reader. */
const runLists = (appDir: string, doctype: string, lists: number) =>
  spawnWorker<{ listCpu: number; listWall: number }>([appDir, doctype, String(LIST_ROWS), String(lists)]);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const appDir = mkdtempSync(join(tmpdir(), 'bench-at-rest-'));
  try {
    writeBenchApp(appDir);
    const figures = new Map<string, { create: number[]; read: number[]; whole: number[]; idle: number[] }>();
    for (const side of SIDES) figures.set(side, { create: [], read: [], whole: [], idle: [] });
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of round % 2 ? SIDES : [...SIDES].reverse()) {
        const f = figures.get(side)!;
        const busy = run(appDir, side, OPS);
        f.create.push(busy.create / OPS);
        f.read.push(busy.read / OPS);
        f.whole.push(busy.wholeMs);
        f.idle.push(run(appDir, side, 0).wholeMs);
      }
      console.log(`round ${round}/${ROUNDS} done`);
    }
    const flagged = figures.get('bench.Flagged')!;
    const plain = figures.get('bench.Plain')!;
    const perOp = (f: typeof flagged) => (median(f.whole) - median(f.idle)) / (2 * OPS);
    const row = (label: string, a: number, b: number) =>
      console.log(
        `${label.padEnd(44)} ${a.toFixed(3).padStart(8)} ${b.toFixed(3).padStart(8)} ${(a / b).toFixed(2).padStart(7)}x`,
      );
    console.log(`\n${OPS} creates and ${OPS} reads per process, medians of ${ROUNDS} rounds (CPU ms)`);
    console.log(`${''.padEnd(44)} ${'flagged'.padStart(8)} ${'plain'.padStart(8)} ${'ratio'.padStart(8)}`);
    row('CPU per create (in-process)', median(flagged.create), median(plain.create));
    row('CPU per revealed read (in-process)', median(flagged.read), median(plain.read));
    row('whole process per operation (/usr/bin/time)', perOp(flagged), perOp(plain));

    const listed = new Map<string, { wall: number[]; cpu: number[]; whole: number[]; stored: number[] }>();
    for (const side of SIDES) listed.set(side, { wall: [], cpu: [], whole: [], stored: [] });
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of round % 2 ? SIDES : [...SIDES].reverse()) {
        const f = listed.get(side)!;
        const busy = runLists(appDir, side, LISTS);
        f.wall.push(busy.listWall / LISTS);
        f.cpu.push(busy.listCpu / LISTS);
        f.whole.push(busy.wholeMs);
        f.stored.push(runLists(appDir, side, 0).wholeMs);
      }
      console.log(`list round ${round}/${ROUNDS} done`);
    }
    const flaggedLists = listed.get('bench.Flagged')!;
    const plainLists = listed.get('bench.Plain')!;
    const perList = (f: typeof flaggedLists) => (median(f.whole) - median(f.stored)) / LISTS;
    console.log(
      `\nA list of ${LIST_ROWS} rows (pages of ${PAGE}) read by a user without read_pii, ${LISTS} lists per process, medians of ${ROUNDS} rounds (ms)`,
    );
    console.log(`${''.padEnd(44)} ${'masked'.padStart(8)} ${'plain'.padStart(8)} ${'ratio'.padStart(8)}`);
    row('list latency (in-process, wall)', median(flaggedLists.wall), median(plainLists.wall));
    row('CPU per list (in-process)', median(flaggedLists.cpu), median(plainLists.cpu));
    row('whole process per list (/usr/bin/time)', perList(flaggedLists), perList(plainLists));
  } finally {
    rmSync(appDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--worker') {
  const lists = process.argv[6];
  await worker(
    process.argv[3]!,
    process.argv[4]!,
    Number(process.argv[5]),
    lists ? Number(lists) : undefined,
  );
} else {
  await main();
}
