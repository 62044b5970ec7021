import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { DbSeenSet, MAX_CLAIMS_PER_STATEMENT } from '../../../backend/security/replay/db-seen-set';
import { type PostgresHandle, startPostgres } from '../../faults/helpers/postgres-server';

/** The database with every statement sent through it recorded, and a switch that makes the claims fail. */
function recorded(inner: Database) {
  const statements: string[] = [];
  let failClaims = false;
  const db: Pick<Database, 'query' | 'exec'> = {
    query: (sql, params) => {
      statements.push(sql);
      if (failClaims && sql.includes('INSERT INTO platform_jwe_seen')) {
        return Promise.reject(new Error('connection lost'));
      }
      return inner.query(sql, params);
    },
    exec: (sql) => inner.exec(sql),
  };
  const claims = () => statements.filter((sql) => sql.includes('INSERT INTO platform_jwe_seen'));
  return { db, claims, failClaims: (fail: boolean) => (failClaims = fail) };
}

const storedIds = async (db: Database, prefix: string) =>
  (
    await db.query<{ jti: string }>('SELECT jti FROM platform_jwe_seen WHERE jti LIKE $1 ORDER BY jti', [
      `${prefix}%`,
    ])
  ).rows.map((row) => row.jti);

// The one acceptance per id is the database's own promise (the primary key): the same claims on the embedded
// database and on a PostgreSQL server, which also refuses one statement touching a row twice.
describe.each(['PGlite', 'PostgreSQL'] as const)('DbSeenSet on %s', (engine) => {
  let server: PostgresHandle | undefined;
  let db: Database;
  beforeAll(async () => {
    if (engine === 'PostgreSQL') server = await startPostgres();
    db = await openDatabase(server ? { databaseUrl: server.url } : { memory: true });
    await new DbSeenSet(db).migrate();
  });
  afterAll(async () => {
    await db?.close();
    await server?.dispose();
  });

  it('accepts exactly one of many concurrent adds of one id, and stores it', async () => {
    const seen = new DbSeenSet(db);
    const results = await Promise.all(Array.from({ length: 20 }, () => seen.add('jti-concurrent', 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await storedIds(db, 'jti-concurrent')).toEqual(['jti-concurrent']);
  });

  it('accepts exactly one add of an id sent concurrently by several processes sharing the database', async () => {
    // On PostgreSQL each process has its own pool; PGlite lives in one process, so there the sets share it.
    const others = server
      ? await Promise.all([1, 2].map(() => openDatabase({ databaseUrl: server?.url })))
      : [];
    try {
      const sets = [db, ...(others.length ? others : [db, db])].map((handle) => new DbSeenSet(handle));
      // Each process also claims ids of its own, so the shared one travels in a batch with others.
      const adds = sets.map((set, p) =>
        Promise.all([
          set.add(`jti-process-${p}-a`, 60_000),
          set.add('jti-shared', 60_000),
          set.add(`jti-process-${p}-b`, 60_000),
        ]),
      );
      const results = await Promise.all(adds);
      expect(results.map(([, shared]) => shared).filter(Boolean)).toHaveLength(1);
      expect(results.flatMap(([own, , ownToo]) => [own, ownToo])).toEqual([
        true,
        true,
        true,
        true,
        true,
        true,
      ]);
    } finally {
      await Promise.all(others.map((other) => other.close()));
    }
  });

  it('claims concurrent distinct ids in fewer statements than adds, each accepted and stored', async () => {
    const { db: counted, claims } = recorded(db);
    const seen = new DbSeenSet(counted);
    const ids = Array.from({ length: 40 }, (_, i) => `jti-batch-${String(i).padStart(2, '0')}`);
    const results = await Promise.all(ids.map((id) => seen.add(id, 60_000)));
    expect(results).toEqual(ids.map(() => true));
    // The first claim goes alone, at once; the 39 that arrived while it ran share the next statement.
    expect(claims()).toHaveLength(2);
    expect(await storedIds(db, 'jti-batch-')).toEqual(ids);
  });

  it('sends at most the bounded number of ids in one statement', async () => {
    const { db: counted, claims } = recorded(db);
    const seen = new DbSeenSet(counted);
    const ids = Array.from({ length: MAX_CLAIMS_PER_STATEMENT + 2 }, (_, i) => `jti-bound-${i}`);
    const results = await Promise.all(ids.map((id) => seen.add(id, 60_000)));
    expect(results.every(Boolean)).toBe(true);
    // One alone, then a full statement, then the one left over.
    expect(claims()).toHaveLength(3);
  });

  it('remembers an id across instances over the same database (a restarted process)', async () => {
    expect(await new DbSeenSet(db).add('jti-restart', 60_000)).toBe(true);
    expect(await new DbSeenSet(db).add('jti-restart', 60_000)).toBe(false);
  });

  it('takes an id over once its lifetime ended, also in a batch with others', async () => {
    let now = 1_000_000;
    const seen = new DbSeenSet(db, { now: () => now });
    expect(await seen.add('jti-expiring', 1_000)).toBe(true);
    now += 999;
    expect(await seen.add('jti-expiring', 1_000)).toBe(false);
    now += 1;
    const [first, expired, again] = await Promise.all([
      seen.add('jti-expiring-other', 1_000),
      seen.add('jti-expiring', 1_000),
      seen.add('jti-expiring', 1_000),
    ]);
    expect([first, expired, again]).toEqual([true, true, false]);
  });

  it('rejects every add of a failing statement, and claims again afterwards', async () => {
    const { db: failing, claims, failClaims } = recorded(db);
    const seen = new DbSeenSet(failing);
    failClaims(true);
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c'].map((id) => seen.add(`jti-fail-${id}`, 60_000)),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(claims()).toHaveLength(2);
    expect(await storedIds(db, 'jti-fail-')).toEqual([]);
    failClaims(false);
    expect(await seen.add('jti-fail-a', 60_000)).toBe(true);
    expect(await storedIds(db, 'jti-fail-')).toEqual(['jti-fail-a']);
  });
});
