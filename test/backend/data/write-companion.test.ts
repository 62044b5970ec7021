/**
 * A create or an update without `Idempotency-Key` stores the record, the naming series' move and the
 * history entry in ONE statement, without BEGIN and COMMIT, against the real MONOLITH app: the statements
 * the database receives are counted. The promise that the record and its history commit together or not at
 * all still holds: a history entry the database refuses (a trigger raising disk full) leaves no record and
 * no gap in the names, and a wrong guess of the next name falls back to the transaction, which stores both.
 * A delete takes its history entry and its attachments' rows along in one statement the same way. All of it
 * runs on PGlite and on a PostgreSQL server.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Attachment } from '../../../backend/attachments/attachment';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { PII_MASK } from '../../../src/protocol';
import { type PostgresHandle, startPostgres } from '../../faults/helpers/postgres-server';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { errorOf, recordCount } from '../security/jwe-support';

/** What the database received: each statement's SQL, and `BEGIN` for each transaction opened. */
const statements: string[] = [];

/** `inner`, counting what it is sent, transactions' statements included. */
function counting(inner: Database): Database {
  const counted = (handle: Pick<Database, 'query'>): Pick<Database, 'query'> => ({
    query: (sql, params) => {
      statements.push(sql);
      return handle.query(sql, params);
    },
  });
  return {
    ...inner,
    ...counted(inner),
    transaction: (fn) => {
      statements.push('BEGIN');
      return inner.transaction((tx) => fn(counted(tx)));
    },
  };
}

let inner: Database;
let t: TestApp;
let dataDir: string;
let server: PostgresHandle | undefined;

const CUSTOMERS = '/api/resource/crm.Customer';

const create = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  t.request('POST', CUSTOMERS, { body, ...(headers ? { headers } : {}) });

const nameOf = async (res: Response) => ((await res.json()) as { data: { name: string } }).data.name;
const counter = (name: string) => Number(name.slice('CUST-'.length));

/** The statements that wrote: what a write sends, without the reads of the checks before it. */
const writes = () => statements.filter((sql) => /^\s*(BEGIN|WITH|INSERT|UPDATE|DELETE)/i.test(sql));

interface HistoryRow {
  kind: string;
  user: string;
  changes: Array<{ field: string; old?: unknown; new?: unknown; hidden?: true }>;
}
const recordOf = async (name: string) =>
  (await inner.query(`SELECT name FROM records WHERE doctype = 'crm.Customer' AND name = $1`, [name]))
    .rows[0];

const historyOf = async (name: string) =>
  (
    await inner.query<HistoryRow>(
      `SELECT kind, "user", changes FROM record_history WHERE doctype = 'crm.Customer' AND name = $1 ORDER BY id`,
      [name],
    )
  ).rows;

// The same writes on the embedded database and on a PostgreSQL server (a statement's atomicity is the
// server's own: the promise is kept by the database, not by this process).
describe.each(['PGlite', 'PostgreSQL'] as const)('on %s', (engine) => {
  beforeAll(async () => {
    if (engine === 'PostgreSQL') server = await startPostgres();
    inner = await openDatabase(server ? { databaseUrl: server.url } : { memory: true });
    dataDir = mkdtempSync(join(tmpdir(), 'write-companion-'));
    t = await createTestApp({ database: counting(inner), config: { 'server.data_dir': dataDir } });
    // The process learns the counter of the prefix from its first create (which takes the name first).
    expect((await create({ customer_name: 'First' })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await inner?.close();
    await server?.dispose();
    server = undefined;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    statements.length = 0;
  });

  describe('a create without Idempotency-Key', () => {
    it('stores the record, the next name and its history entry in one statement', async () => {
      const res = await create({ customer_name: 'Grace', email: 'grace@example.com', status: 'Prospect' });
      expect(res.status).toBe(201);
      const name = await nameOf(res);
      expect(writes()).toHaveLength(1);
      expect(writes()[0]).toMatch(/naming_series[\s\S]*INSERT INTO records[\s\S]*INSERT INTO record_history/);
      expect(statements).not.toContain('BEGIN');
      expect(await historyOf(name)).toEqual([
        {
          kind: 'create',
          user: 'Administrator',
          changes: [
            { field: 'customer_name', new: 'Grace' },
            { field: 'email', hidden: true },
            { field: 'status', new: 'Prospect' },
          ],
        },
      ]);
      // Personal data stays out of the history, and is stored encrypted for the name the record got.
      expect(JSON.stringify(await historyOf(name))).not.toContain('grace@example.com');
      const read = await t.request('GET', `${CUSTOMERS}/${name}`);
      expect(((await read.json()) as { data: Record<string, unknown> }).data).toMatchObject({
        name,
        email: 'grace@example.com',
        modified_by: 'Administrator',
      });
    });

    it('stores neither the record, nor the name, when the database refuses the history entry', async () => {
      const before = await nameOf(await create({ customer_name: 'Before' }));
      await inner.exec(`
      CREATE FUNCTION refuse_history() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100'; END $$;
      CREATE TRIGGER refuse_history BEFORE INSERT ON record_history
        FOR EACH ROW EXECUTE FUNCTION refuse_history();`);
      const records = await recordCount(t.ctx, 'crm.Customer');
      statements.length = 0;
      try {
        const refused = await create({ customer_name: 'No room', email: 'full@example.com' });
        expect(refused.status).toBe(507);
        expect((await errorOf(refused)).code).toBe('insufficient_storage');
        // The one statement failed; no transaction was tried after it.
        expect(writes()).toHaveLength(1);
        expect(statements).not.toContain('BEGIN');
      } finally {
        await inner.exec('DROP TRIGGER refuse_history ON record_history; DROP FUNCTION refuse_history();');
      }
      expect(await recordCount(t.ctx, 'crm.Customer')).toBe(records);
      // The counter did not move either: the next record takes the name the refused one would have had.
      const after = await nameOf(await create({ customer_name: 'After' }));
      expect(counter(after)).toBe(counter(before) + 1);
      expect(await historyOf(after)).toHaveLength(1);
    });

    it('falls back to a transaction that stores the record and its entry when the guess of the name was wrong', async () => {
      const before = await nameOf(await create({ customer_name: 'Before' }));
      // Another process takes the next name: this process's guess is now wrong.
      await inner.query(`UPDATE naming_series SET current = current + 1 WHERE prefix = 'CUST'`);
      statements.length = 0;
      const res = await create({ customer_name: 'Fallback', email: 'fallback@example.com' });
      expect(res.status).toBe(201);
      const name = await nameOf(res);
      expect(counter(name)).toBe(counter(before) + 2);
      // The guess stored nothing; the transaction then took the name and wrote both.
      expect(writes()[0]).toMatch(/INSERT INTO record_history/);
      expect(writes()[1]).toBe('BEGIN');
      // No entry for the name it guessed (the other process's record).
      const guessed = `CUST-${String(counter(before) + 1).padStart(5, '0')}`;
      expect(await historyOf(guessed)).toEqual([]);
      expect(await historyOf(name)).toEqual([
        {
          kind: 'create',
          user: 'Administrator',
          changes: [
            { field: 'customer_name', new: 'Fallback' },
            { field: 'email', hidden: true },
            { field: 'status', new: 'Active' },
          ],
        },
      ]);
      const read = await t.request('GET', `${CUSTOMERS}/${name}`);
      expect(((await read.json()) as { data: { email: string } }).data.email).toBe('fallback@example.com');
      // And the process guesses right again after it.
      statements.length = 0;
      const next = await nameOf(await create({ customer_name: 'Next' }));
      expect(counter(next)).toBe(counter(name) + 1);
      expect(writes()).toHaveLength(1);
    });

    it('of many at once, guesses each its own name: names consecutive, a statement for one or more each', async () => {
      const before = await nameOf(await create({ customer_name: 'Before' }));
      statements.length = 0;
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => create({ customer_name: `Concurrent ${i}` })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
      const names = await Promise.all(answers.map(nameOf));
      expect(names.map(counter).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 8 }, (_, i) => counter(before) + 1 + i),
      );
      // Those that arrive while a statement is in flight go together in the next one
      // (test/backend/data/grouped-insert.test.ts); how many do depends on timing, never more than one each.
      expect(writes().length).toBeGreaterThanOrEqual(1);
      expect(writes().length).toBeLessThanOrEqual(8);
      expect(statements).not.toContain('BEGIN');
      for (const name of names) expect(await historyOf(name)).toHaveLength(1);
    });

    it('with an Idempotency-Key, stores the key with the record in a transaction', async () => {
      const res = await create({ customer_name: 'Keyed' }, { 'idempotency-key': 'write-companion-keyed' });
      expect(res.status).toBe(201);
      expect(statements).toContain('BEGIN');
      expect(await historyOf(await nameOf(res))).toHaveLength(1);
    });
  });

  describe('an update without Idempotency-Key', () => {
    it('stores the record and its history entry in one statement', async () => {
      const name = await nameOf(await create({ customer_name: 'Ada', email: 'ada@example.com' }));
      statements.length = 0;
      const res = await t.request('PUT', `${CUSTOMERS}/${name}`, {
        body: { customer_name: 'Ada Lovelace', email: 'ada.l@example.com' },
      });
      expect(res.status).toBe(200);
      expect(writes()).toHaveLength(1);
      expect(writes()[0]).toMatch(/UPDATE records[\s\S]*INSERT INTO record_history/);
      expect(statements).not.toContain('BEGIN');
      expect((await historyOf(name)).map((e) => [e.kind, e.changes])).toEqual([
        [
          'create',
          [
            { field: 'customer_name', new: 'Ada' },
            { field: 'email', hidden: true },
            { field: 'status', new: 'Active' },
          ],
        ],
        [
          'update',
          [
            { field: 'customer_name', old: 'Ada', new: 'Ada Lovelace' },
            { field: 'email', hidden: true },
          ],
        ],
      ]);
    });
  });

  describe('a delete without Idempotency-Key', () => {
    const attach = async (record: string, content: string) => {
      const bytes = new TextEncoder().encode(content);
      const res = await t.request('POST', `${CUSTOMERS}/${record}/attachments?filename=note.txt`, {
        body: bytes,
        headers: { 'content-type': 'text/plain', 'content-length': String(bytes.byteLength) },
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { data: Attachment }).data;
    };
    const attachmentRows = async (record: string) =>
      (await inner.query('SELECT id FROM record_attachments WHERE record = $1', [record])).rows;
    const fileOf = (attachment: Attachment) => join(dataDir, 'attachments', attachment.sha256);

    it('deletes the record, stores its history entry and removes its attachments in one statement', async () => {
      const name = await nameOf(await create({ customer_name: 'Leaving', email: 'leaving@example.com' }));
      const attachment = await attach(name, 'only this record has it');
      statements.length = 0;
      const res = await t.request('DELETE', `${CUSTOMERS}/${name}`);
      expect(res.status).toBe(200);
      // The answer is the deleted record, its personal data masked: a delete's answer reveals nothing.
      expect(await res.json()).toMatchObject({
        data: { name, customer_name: 'Leaving', email: PII_MASK },
        masked_fields: ['email'],
      });
      expect(writes()).toHaveLength(1);
      expect(writes()[0]).toMatch(
        /DELETE FROM records[\s\S]*INSERT INTO record_history[\s\S]*DELETE FROM record_attachments/,
      );
      expect(statements).not.toContain('BEGIN');
      expect(await recordOf(name)).toBeUndefined();
      expect((await historyOf(name)).map((e) => [e.kind, e.user, e.changes])).toEqual([
        ['create', 'Administrator', expect.any(Array)],
        ['attach', 'Administrator', expect.any(Array)],
        ['delete', 'Administrator', []],
      ]);
      expect(await attachmentRows(name)).toEqual([]);
      // The file no other attachment uses goes once the statement stored the delete.
      await t.ctx.attachments!.idle();
      expect(existsSync(fileOf(attachment))).toBe(false);
    });

    it('keeps the record, its attachments and their files when the database refuses the history entry', async () => {
      const name = await nameOf(await create({ customer_name: 'Staying' }));
      const attachment = await attach(name, 'kept with its record');
      await inner.exec(`
      CREATE FUNCTION refuse_history() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100'; END $$;
      CREATE TRIGGER refuse_history BEFORE INSERT ON record_history
        FOR EACH ROW EXECUTE FUNCTION refuse_history();`);
      statements.length = 0;
      try {
        const refused = await t.request('DELETE', `${CUSTOMERS}/${name}`);
        expect(refused.status).toBe(507);
        expect((await errorOf(refused)).code).toBe('insufficient_storage');
        expect(writes()).toHaveLength(1);
        expect(statements).not.toContain('BEGIN');
      } finally {
        await inner.exec('DROP TRIGGER refuse_history ON record_history; DROP FUNCTION refuse_history();');
      }
      await t.ctx.attachments!.idle();
      expect(await recordOf(name)).toBeDefined();
      expect(await attachmentRows(name)).toHaveLength(1);
      expect(existsSync(fileOf(attachment))).toBe(true);
      expect((await historyOf(name)).map((e) => e.kind)).toEqual(['create', 'attach']);
    });

    it('answers 404 for a record deleted in the meantime, and stores no entry for it', async () => {
      const name = await nameOf(await create({ customer_name: 'Twice' }));
      const [first, second] = await Promise.all([
        t.request('DELETE', `${CUSTOMERS}/${name}`),
        t.request('DELETE', `${CUSTOMERS}/${name}`),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 404]);
      expect((await historyOf(name)).map((e) => e.kind)).toEqual(['create', 'delete']);
    });

    it('with an Idempotency-Key, deletes in a transaction that stores the entry and removes the attachments', async () => {
      const name = await nameOf(await create({ customer_name: 'Keyed delete' }));
      await attach(name, 'keyed delete attachment');
      statements.length = 0;
      const res = await t.request('DELETE', `${CUSTOMERS}/${name}`, {
        headers: { 'idempotency-key': 'write-companion-keyed-delete' },
      });
      expect(res.status).toBe(200);
      expect(statements).toContain('BEGIN');
      expect((await historyOf(name)).map((e) => e.kind)).toEqual(['create', 'attach', 'delete']);
      expect(await attachmentRows(name)).toEqual([]);
    });
  });
});
