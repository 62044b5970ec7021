/**
 * Processes starting at once against one PostgreSQL server, as the services of a MACROSERVICE deployment
 * do, each run every registered migration on start. They take turns (backend/db/postgres.ts): run together,
 * the same `CREATE OR REPLACE FUNCTION` and `CREATE ... IF NOT EXISTS` statements race over PostgreSQL's
 * catalog, and one start fails with a deadlock or a duplicate key.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../backend/audit/audit-sql';
import '../../../backend/history/record-history';
import '../../../backend/releases/migrations';
import '../../../backend/security/replay/db-seen-set';
import '../../../backend/vault/vault-keys';
import type { Database } from '../../../backend/db/database';
import { registeredMigrations } from '../../../backend/db/migrations';
import { openDatabase } from '../../../backend/db/open-database';
import { type PostgresHandle, startPostgres } from '../../faults/helpers/postgres-server';

/** Fresh databases, each opened by this many processes at once. */
const DATABASES = 3;
const PROCESSES = 4;

let server: PostgresHandle;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.dispose();
});

/** The server's URL with another database name. */
function urlOf(database: string): string {
  const url = new URL(server.url);
  url.pathname = `/${database}`;
  return url.toString();
}

describe('the schema on a shared PostgreSQL server', () => {
  it('is created once by processes that start at the same moment, none of them failing', async () => {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      for (let d = 0; d < DATABASES; d++) await admin.query(`CREATE DATABASE schema_race_${d}`);
    } finally {
      await admin.end();
    }
    expect(registeredMigrations().map((m) => m.id)).toContain('audit.log');

    for (let d = 0; d < DATABASES; d++) {
      // Each handle has its own pool, as each process of a deployment has.
      const opened = await Promise.allSettled(
        Array.from({ length: PROCESSES }, () => openDatabase({ databaseUrl: urlOf(`schema_race_${d}`) })),
      );
      const handles = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      try {
        expect(opened.filter((o) => o.status === 'rejected').map((o) => String(o.reason))).toEqual([]);
        const { rows } = await (handles[0] as Database).query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_trigger WHERE tgname LIKE 'audit_log%'",
        );
        expect(rows[0]!.n).toBeGreaterThan(0);
      } finally {
        await Promise.all(handles.map((h) => h.close()));
      }
    }
  }, 120_000);
});
