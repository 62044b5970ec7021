import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { registeredMigrations, registerMigration, runMigrations } from '../../../backend/db/migrations';
import { openDatabase } from '../../../backend/db/open-database';

const dataDir = mkdtempSync(join(tmpdir(), 'desk-db-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('openDatabase', () => {
  it('keeps records under <data_dir>/db across a close and reopen', async () => {
    const first = await openDatabase({ dataDir });
    await first.query('INSERT INTO records (doctype, name, data) VALUES ($1, $2, $3::jsonb)', [
      'crm.Customer',
      'CUST-00001',
      JSON.stringify({ customer_name: 'Ada' }),
    ]);
    await first.close();

    const second = await openDatabase({ dataDir });
    const { rows } = await second.query<{ data: { customer_name: string } }>(
      'SELECT data FROM records WHERE doctype = $1 AND name = $2',
      ['crm.Customer', 'CUST-00001'],
    );
    await second.close();
    expect(rows.map((r) => r.data.customer_name)).toEqual(['Ada']);
    // A new cluster is created by a child process, which starts its own Node and PGlite.
  }, 120_000);

  it('runs registered migrations once per id, and again harmlessly on every open', async () => {
    const sql = 'CREATE TABLE IF NOT EXISTS test_widgets (id text PRIMARY KEY)';
    registerMigration({ id: 'test.widgets', sql });
    registerMigration({ id: 'test.widgets', sql: 'SELECT broken syntax here' });
    expect(registeredMigrations().filter((m) => m.id === 'test.widgets')).toHaveLength(1);
    const db = await openDatabase({ memory: true });
    await runMigrations(db);
    await db.query("INSERT INTO test_widgets (id) VALUES ('a')");
    const { rows } = await db.query('SELECT id FROM test_widgets');
    expect(rows).toEqual([{ id: 'a' }]);
    await expect(runMigrations(db, [{ id: 'bad', sql: 'NOT SQL' }])).rejects.toThrow(/migration bad failed/);
    await db.close();
  });

  it('commits a transaction and rolls back a failed one', async () => {
    const db = await openDatabase({ memory: true });
    await db.transaction((tx) =>
      tx.query("INSERT INTO naming_series (prefix, current) VALUES ('A', 1)").then(() => undefined),
    );
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO naming_series (prefix, current) VALUES ('B', 1)");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const { rows } = await db.query<{ prefix: string }>('SELECT prefix FROM naming_series ORDER BY prefix');
    expect(rows.map((r) => r.prefix)).toEqual(['A']);
    await db.close();
  });
});
