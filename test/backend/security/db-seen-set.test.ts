import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { DbSeenSet } from '../../../backend/security/replay/db-seen-set';

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ memory: true });
});
afterAll(() => db?.close());

describe('DbSeenSet', () => {
  it('accepts exactly one of many concurrent adds of one id, and stores it', async () => {
    const seen = new DbSeenSet(db);
    await seen.migrate();
    const results = await Promise.all(Array.from({ length: 20 }, () => seen.add('jti-concurrent', 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const { rows } = await db.query('SELECT jti FROM platform_jwe_seen WHERE jti = $1', ['jti-concurrent']);
    expect(rows).toHaveLength(1);
  });

  it('remembers an id across instances over the same database (a restarted process)', async () => {
    expect(await new DbSeenSet(db).add('jti-restart', 60_000)).toBe(true);
    expect(await new DbSeenSet(db).add('jti-restart', 60_000)).toBe(false);
  });

  it('takes an id over once its lifetime ended', async () => {
    let now = 1_000_000;
    const seen = new DbSeenSet(db, { now: () => now });
    expect(await seen.add('jti-expiring', 1_000)).toBe(true);
    now += 999;
    expect(await seen.add('jti-expiring', 1_000)).toBe(false);
    now += 1;
    expect(await seen.add('jti-expiring', 1_000)).toBe(true);
  });
});
