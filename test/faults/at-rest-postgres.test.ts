import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesContaining } from './helpers/leak-search';
import { type PostgresHandle, startPostgres } from './helpers/postgres-server';
import { type ServeProcess, signIn, startServe } from './helpers/serve-process';

// One real `m serve` (MONOLITH) on Debian's PostgreSQL: a Customer with a known email and phone is created
// through the API, the server is stopped, and both a `pg_dump` of the database (what a backup holds) and
// every file of the PostgreSQL data directory (tables under base/, the write-ahead log under pg_wal/) are
// searched for those bytes. The customer's name, stored in clear, is searched too: finding it proves the
// search would find a value stored in clear.
const temp = mkdtempSync(join(tmpdir(), 'fault-at-rest-pg-'));
const dataDir = join(temp, 'data');
const dumpFile = join(temp, 'desk.sql');
const marker = randomBytes(6).toString('hex');
const email = `at-rest-pg-${marker}@example.com`;
const phone = `+44 20 7946 ${marker.slice(0, 4).replace(/[a-f]/g, '7')}`;
const clearName = `Clear Name ${marker}`;
let postgres: PostgresHandle | undefined;
let server: ServeProcess | undefined;

beforeAll(async () => {
  postgres = await startPostgres();
  // Plain JSON requests, so the test can send the email itself (payload encryption is the wire's business).
  server = await startServe(dataDir, [], {
    PLATFORM_ENCRYPTION_MODE: 'disabled',
    PLATFORM_DATABASE_URL: postgres.url,
  });
});
afterAll(async () => {
  await server?.stop();
  await postgres?.dispose();
  rmSync(temp, { recursive: true, force: true });
});

describe('personal data at rest on PostgreSQL, on a real server', () => {
  it('stores a Customer created through the API and reads its email back', async () => {
    const session = await signIn(server!.url);
    const created = await fetch(`${server!.url}/api/resource/crm.Customer`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: JSON.stringify({ customer_name: clearName, email, phone }),
    });
    expect(created.status).toBe(201);
    const customer = ((await created.json()) as { data: { name: string } }).data.name;
    const read = await fetch(`${server!.url}/api/resource/crm.Customer/${customer}`, { headers: session });
    expect(((await read.json()) as { data: { email: string } }).data.email).toBe(email);
  });

  it('leaves no byte of the email or phone in a pg_dump of the database', async () => {
    expect(await server!.stop()).toBe(0);
    const dump = spawnSync(
      join(postgres!.binDir, 'pg_dump'),
      ['--dbname', postgres!.url, '--file', dumpFile, '--no-password'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(dump.stderr).toBe('');
    expect(dump.status).toBe(0);
    const backup = await readFile(dumpFile);
    expect(backup.includes(Buffer.from(clearName))).toBe(true);
    expect(backup.includes(Buffer.from(email))).toBe(false);
    expect(backup.includes(Buffer.from(phone))).toBe(false);
  });

  it('leaves no byte of the email or phone in the tables or write-ahead log of the data directory', async () => {
    // A checkpoint writes the committed rows from shared buffers into the table files, so the search
    // below reads the tables as well as the log.
    const client = new pg.Client({ connectionString: postgres!.url });
    await client.connect();
    try {
      await client.query('CHECKPOINT');
    } finally {
      await client.end();
    }
    const withName = await filesContaining(postgres!.dataDir, clearName);
    expect(withName.some((f) => f.startsWith('base/'))).toBe(true);
    expect(withName.some((f) => f.startsWith('pg_wal/'))).toBe(true);
    expect(await filesContaining(postgres!.dataDir, email)).toEqual([]);
    expect(await filesContaining(postgres!.dataDir, phone)).toEqual([]);
  });
});
