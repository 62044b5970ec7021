/**
 * Lists on a large DocType, without and with its field indexes, on PGlite and on a PostgreSQL server.
 * `BENCH_LIST_RECORDS` records (default 100,000; the reference size is 1,000,000) of `bench.Order` are
 * generated inside the database among twice as many records of two other DocTypes, then the record store's
 * own queries run: an equality-filtered page with its total, a range filter (whose count walks every match)
 * and a title-prefix search. Each prints p95 unindexed, p95 indexed and their ratio, measured in this run.
 * See docs/performance.md#indexes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { parseListQuery } from '../backend/data/list-query';
import { DbRecordStore } from '../backend/data/record-store';
import type { Database } from '../backend/db/database';
import { openDatabase } from '../backend/db/open-database';
import { ensureRecordIndexes, indexStatements } from '../backend/db/record-indexes';
import { defineDocType } from '../src/contract/doctype';
import { startPostgres } from './support/postgres-server';

const RECORDS = Number(process.env.BENCH_LIST_RECORDS ?? 100_000);
const RUNS = 25;
const REGIONS = 1_000;

const Order = defineDocType({
  name: 'bench.Order',
  label: 'Order',
  titleField: 'title',
  model: z.object({
    title: z.string(),
    region: z.string().meta({ index: true }),
    total: z.number().meta({ index: true }),
  }),
});

/** The three list requests, as the API receives them; `i` varies the values between runs. */
const QUERIES: Array<[string, (i: number) => Record<string, string>]> = [
  [
    'filtered list (region = ?)',
    (i) => ({ filters: JSON.stringify([['region', '=', `R${(i * 37) % REGIONS}`]]) }),
  ],
  [
    'count of a range (total > ?)',
    (i) => ({ filters: JSON.stringify([['total', '>', RECORDS - 2_000 - i * 10]]), limit_page_length: '1' }),
  ],
  [
    'title prefix search',
    (i) => ({ filters: JSON.stringify([['title', 'like', `Order ${1000 + i * 7}%`]]) }),
  ],
];

async function load(db: Database): Promise<void> {
  const chunk = 100_000;
  const insert = async (doctype: string, prefix: string, count: number, data: string) => {
    for (let from = 1; from <= count; from += chunk) {
      const to = Math.min(count, from + chunk - 1);
      await db.exec(
        `INSERT INTO records (doctype, name, data) SELECT '${doctype}', '${prefix}-' || i, ${data} FROM generate_series(${from}, ${to}) AS i`,
      );
    }
  };
  await insert(
    'bench.Order',
    'ORDE',
    RECORDS,
    `jsonb_build_object('title', 'Order ' || i, 'region', 'R' || (i % ${REGIONS}), 'total', i)`,
  );
  for (const other of ['bench.Other', 'bench.Else']) {
    await insert(
      other,
      other.slice(6, 10).toUpperCase(),
      RECORDS,
      `jsonb_build_object('title', 'x' || i, 'total', i)`,
    );
  }
  await db.exec('ANALYZE records');
}

function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!;
}

async function measure(db: Database): Promise<number[]> {
  const store = new DbRecordStore(db);
  const results: number[] = [];
  for (const [, params] of QUERIES) {
    await store.list(Order, parseListQuery(Order, params(0)));
    const samples: number[] = [];
    for (let i = 1; i <= RUNS; i++) {
      const start = performance.now();
      await store.list(Order, parseListQuery(Order, params(i)));
      samples.push(performance.now() - start);
    }
    results.push(p95(samples));
  }
  return results;
}

async function run(label: string, db: Database) {
  const t = performance.now();
  await load(db);
  console.error(
    `${label}: ${RECORDS * 3} records loaded in ${((performance.now() - t) / 1000).toFixed(0)} s`,
  );
  const unindexed = await measure(db);
  const ti = performance.now();
  await ensureRecordIndexes(db, [Order]);
  await db.exec('ANALYZE records');
  console.error(
    `${label}: ${indexStatements(Order).length} indexes built in ${((performance.now() - ti) / 1000).toFixed(0)} s`,
  );
  const indexed = await measure(db);
  console.log(
    `\n${label}: ${RECORDS.toLocaleString('en')} bench.Order among ${(RECORDS * 3).toLocaleString('en')} records, p95 of ${RUNS} runs`,
  );
  console.log(`${'query'.padEnd(30)} ${'unindexed'.padStart(10)} ${'indexed'.padStart(10)}  ratio`);
  QUERIES.forEach(([name], i) => {
    const ratio = unindexed[i]! / indexed[i]!;
    console.log(
      `${name.padEnd(30)} ${`${unindexed[i]!.toFixed(1)} ms`.padStart(10)} ${`${indexed[i]!.toFixed(1)} ms`.padStart(10)}  ${ratio.toFixed(1)}x faster`,
    );
  });
}

const dir = mkdtempSync(join(tmpdir(), 'bench-list-'));
const pg = await startPostgres();
try {
  const lite = await openDatabase({ dataDir: dir });
  try {
    await run('PGlite', lite);
  } finally {
    await lite.close();
  }
  if (pg) {
    const server = await openDatabase({ databaseUrl: pg.createDatabase('bench_list') });
    try {
      await run('PostgreSQL', server);
    } finally {
      await server.close();
    }
  } else {
    console.log('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin): its rows are skipped.');
  }
} finally {
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
}
