/**
 * `GET /metrics` of a process on a real PostgreSQL server (Debian's, started on a free port): the pool's
 * connections and the server's statistics for the platform's database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { type PostgresHandle, startPostgres } from '../../faults/helpers/postgres-server';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let server: PostgresHandle;
let db: Database;
let t: TestApp;
beforeAll(async () => {
  server = await startPostgres();
  db = await openDatabase({ databaseUrl: server.url });
  t = await createTestApp({ database: db });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await db?.close();
  await server?.dispose();
});

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics on PostgreSQL', () => {
  it("shows the pool's connections and the server's statistics", async () => {
    expect((await t.request('POST', '/api/resource/crm.Lead', { body: { lead_name: 'Ada' } })).status).toBe(
      201,
    );
    const res = await t.request('GET', '/metrics');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(sample(text, 'platform_db_connections{state="max"}')).toBe(10);
    expect(sample(text, 'platform_db_connections{state="open"}')).toBeGreaterThan(0);
    expect(sample(text, 'platform_db_connections{state="waiting"}')).toBe(0);
    expect(sample(text, 'platform_db_backends')).toBeGreaterThan(0);
    expect(sample(text, 'platform_db_transactions_committed_total')).toBeGreaterThan(0);
  });
});
