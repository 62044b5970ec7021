/**
 * The embedded database runs its parameterised statements as named prepared statements: each text is parsed
 * once and run again by name, failures answer Postgres's own error and leave the connection usable, the
 * least recently used statements are closed beyond a bound, a statement whose table changed its columns is
 * prepared again, and parameters mean what they mean on a PostgreSQL server.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openPglite } from '../../../backend/db/pglite';
import { PreparedStatements, textParameter } from '../../../backend/db/pglite-statements';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

async function database(): Promise<Database> {
  const db = await openPglite();
  open.push(db);
  await db.exec('CREATE TABLE items (code text PRIMARY KEY, qty int NOT NULL)');
  return db;
}

/** The prepared statements of the connection whose text is `sql`. */
async function preparedAs(db: Pick<Database, 'query'>, sql: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1',
    [sql],
  );
  return rows[0]!.n;
}

describe('prepared statements of the embedded database', () => {
  it('parses a statement once and runs it again by name, with each run its own parameters', async () => {
    const db = await database();
    const insert = 'INSERT INTO items (code, qty) VALUES ($1, $2)';
    for (let i = 0; i < 3; i++) await db.query(insert, [`I-${i}`, i]);
    const select = 'SELECT code, qty FROM items WHERE code = $1';
    expect((await db.query(select, ['I-1'])).rows).toEqual([{ code: 'I-1', qty: 1 }]);
    expect((await db.query(select, ['I-2'])).rows).toEqual([{ code: 'I-2', qty: 2 }]);
    expect(await preparedAs(db, insert)).toBe(1);
    expect(await preparedAs(db, select)).toBe(1);
    expect((await db.query('UPDATE items SET qty = qty + 1 WHERE qty >= $1', [1])).affectedRows).toBe(2);
  });

  it("answers Postgres's error code, prepares nothing that did not parse, and keeps the connection usable", async () => {
    const db = await database();
    await db.query('INSERT INTO items (code, qty) VALUES ($1, $2)', ['A', 1]);
    await expect(db.query('INSERT INTO items (code, qty) VALUES ($1, $2)', ['A', 2])).rejects.toMatchObject({
      code: '23505',
    });
    const broken = 'SELEC code FROM items';
    await expect(db.query(broken)).rejects.toMatchObject({ code: '42601' });
    expect(await preparedAs(db, broken)).toBe(0);
    // Parsed, then failed while running: prepared, and runs again.
    const divide = 'SELECT 10 / $1::int AS q';
    await expect(db.query(divide, [0])).rejects.toMatchObject({ code: '22012' });
    expect((await db.query(divide, [5])).rows).toEqual([{ q: 2 }]);
    expect(await preparedAs(db, divide)).toBe(1);
  });

  it('closes the least recently used statements beyond its bound', async () => {
    const pg = new PGlite();
    open.push(pg);
    await pg.waitReady;
    const statements = new PreparedStatements(pg, 3);
    const texts = ['SELECT 1 AS a', 'SELECT 2 AS a', 'SELECT 3 AS a', 'SELECT 4 AS a'];
    for (const text of texts) await statements.run(text, []);
    await statements.run(texts[1]!, []); // used again: now the most recent
    await statements.run('SELECT 5 AS a', []);
    expect(statements.size).toBe(3);
    // An evicted statement is closed by the next message: this one closes `SELECT 3`; preparing it evicts
    // `SELECT 4`, closed by the message after it.
    const { rows } = await statements.run<{ statement: string }>(
      'SELECT statement FROM pg_prepared_statements ORDER BY statement',
      [],
    );
    expect(rows.map((r) => r.statement)).toEqual([
      'SELECT 2 AS a',
      'SELECT 4 AS a',
      'SELECT 5 AS a',
      'SELECT statement FROM pg_prepared_statements ORDER BY statement',
    ]);
  });

  it('prepares a statement again when its table changed its columns', async () => {
    const db = await database();
    await db.query('INSERT INTO items (code, qty) VALUES ($1, $2)', ['A', 1]);
    expect((await db.query('SELECT * FROM items')).rows).toEqual([{ code: 'A', qty: 1 }]);
    await db.exec('ALTER TABLE items ADD COLUMN note text');
    expect((await db.query('SELECT * FROM items')).rows).toEqual([{ code: 'A', qty: 1, note: null }]);
  });

  it("runs a transaction's statements inside it, and a failed transaction stores none of them", async () => {
    const db = await database();
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO items (code, qty) VALUES ($1, $2)', ['T', 1]);
        expect((await tx.query('SELECT qty FROM items WHERE code = $1', ['T'])).rows).toEqual([{ qty: 1 }]);
        await tx.query('INSERT INTO items (code, qty) VALUES ($1, $2)', ['T', 2]);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await db.query('SELECT qty FROM items WHERE code = $1', ['T'])).rows).toEqual([]);
  });

  it('sends parameters as node-postgres does: dates, bytes, arrays, objects, booleans and null', async () => {
    const db = await database();
    const when = new Date('2026-01-02T03:04:05.678Z');
    const { rows } = await db.query(
      'SELECT $1::timestamptz AS d, $2::bytea AS b, $3::text[] AS a, $4::jsonb AS j, $5::boolean AS t, $6::text AS n, $7::bigint AS big',
      [when, Buffer.from([0, 1, 254]), ['x', 'a "q"', 'b\\s', null], { k: [1, 'é'] }, true, null, 12n],
    );
    expect(rows[0]).toEqual({
      d: when,
      b: new Uint8Array([0, 1, 254]),
      a: ['x', 'a "q"', 'b\\s', null],
      j: { k: [1, 'é'] },
      t: true,
      n: null,
      big: 12,
    });
    expect(textParameter(undefined)).toBeNull();
    expect(textParameter([[1, 2], [3]])).toBe('{{"1","2"},{"3"}}');
  });
});
