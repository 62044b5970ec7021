/**
 * Creates of one naming prefix that arrive while a guessed statement of it is in flight are sent together in
 * the next one (`DbRecordStore.insertAlongside`, `NamingGuesses.together`): one statement for the group, the
 * names consecutive in arrival order, each record's data built for its own name, and each one's companion
 * rows stored with it. A group stores all of its writes or none: a wrong guess or a refused companion leaves
 * every write of the group to its caller's transaction (undefined), while a write sent alone is given the
 * statement's error. The calls are made in one tick, so which of them go together does not depend on timing:
 * the first finds nothing in flight and goes alone, the rest wait for it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Customer } from '../../../backend/apps/crm/doctypes';
import { MAX_GROUP } from '../../../backend/data/naming-guesses';
import { DbRecordStore } from '../../../backend/data/record-store';
import type { WriteCompanion } from '../../../backend/data/records';
import { type Database, databaseIdentity } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';

let db: Database;
let store: DbRecordStore;
const statements: string[] = [];

const number = (name: string) => Number(name.slice('CUST-'.length));

/** A companion row in `grouped_note` for the record it is given, whose `note` the test chooses. */
function note(text: string, told?: unknown[][]): WriteCompanion {
  return {
    database: databaseIdentity(db),
    insert: (name) => ({
      sql: (first, condition) =>
        `INSERT INTO grouped_note (name, note) SELECT $${first}::text, $${first + 1}::text WHERE ${condition}
         RETURNING note`,
      params: [name, text],
    }),
    ...(told ? { returned: (values: readonly unknown[]) => void told.push([...values]) } : {}),
  };
}

/** Starts one create per label in this tick; each record's data names the name it was built for. */
function createAll(labels: readonly string[], companion: (label: string) => WriteCompanion = note) {
  return Promise.all(
    labels.map((label) =>
      store.insertAlongside(
        Customer,
        (name) => ({ customer_name: label, built_for: name }),
        'Administrator',
        [companion(label)],
      ),
    ),
  );
}

const counterNow = async () =>
  Number(
    (await db.query<{ current: string }>(`SELECT current FROM naming_series WHERE prefix = 'CUST'`)).rows[0]!
      .current,
  );
const notes = async () =>
  (await db.query<{ name: string; note: string }>('SELECT name, note FROM grouped_note ORDER BY name')).rows;
const writes = () => statements.filter((sql) => /^\s*WITH next/.test(sql));

beforeAll(async () => {
  db = await openDatabase({ memory: true });
  await db.exec('CREATE TABLE grouped_note (name text NOT NULL, note text NOT NULL)');
  const counted: Database = {
    ...db,
    identity: databaseIdentity(db),
    query: (sql, params) => {
      statements.push(sql);
      return db.query(sql, params);
    },
  };
  store = new DbRecordStore(counted);
  // The process learns the prefix's counter from a first create that takes its name first.
  await store.insert(Customer, { customer_name: 'First' });
}, 60_000);
afterAll(() => db.close());
beforeEach(async () => {
  statements.length = 0;
  await db.exec('DELETE FROM grouped_note');
});

describe('creates of one prefix at once', () => {
  it('go in two statements: the first alone, the rest together, under consecutive names', async () => {
    const before = await counterNow();
    const labels = Array.from({ length: 8 }, (_, i) => `Together ${i}`);
    const records = await createAll(labels);
    expect(writes()).toHaveLength(2);
    expect(records.map((r) => number(r!.name))).toEqual(labels.map((_, i) => before + 1 + i));
    for (const [i, record] of records.entries()) {
      expect(record).toMatchObject({ customer_name: labels[i], built_for: record!.name });
      expect(await store.get(Customer, record!.name)).toMatchObject({ built_for: record!.name });
    }
    expect(await notes()).toEqual(records.map((r, i) => ({ name: r!.name, note: labels[i] })));
    expect(await counterNow()).toBe(before + 8);
  });

  it(`send at most ${MAX_GROUP} writes in one statement`, async () => {
    const before = await counterNow();
    const labels = Array.from({ length: MAX_GROUP + 2 }, (_, i) => `Many ${i}`);
    const records = await createAll(labels);
    // One alone, then a full group, then the one left over.
    expect(writes()).toHaveLength(3);
    expect(records.map((r) => number(r!.name))).toEqual(labels.map((_, i) => before + 1 + i));
    expect(await notes()).toHaveLength(labels.length);
  });

  it('tell each write its own companion values', async () => {
    const told = [[], [], []] as unknown[][][];
    const labels = ['Told 0', 'Told 1', 'Told 2'];
    await createAll(labels, (label) => note(label, told[labels.indexOf(label)]));
    expect(told).toEqual([[['Told 0']], [['Told 1']], [['Told 2']]]);
  });

  it('store none of a group whose companion the database refuses, and leave each write to its caller', async () => {
    await db.exec(`
      CREATE FUNCTION refuse_note() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.note = 'Refused' THEN RAISE EXCEPTION 'refused' USING ERRCODE = '53100'; END IF;
          RETURN NEW;
        END $$;
      CREATE TRIGGER refuse_note BEFORE INSERT ON grouped_note FOR EACH ROW EXECUTE FUNCTION refuse_note();`);
    try {
      const before = await counterNow();
      const results = await createAll(['Alone', 'Kept 1', 'Refused', 'Kept 2']);
      // The first was stored alone; the group of the other three stored nothing and moved no counter.
      expect(number(results[0]!.name)).toBe(before + 1);
      expect(results.slice(1)).toEqual([undefined, undefined, undefined]);
      expect(await counterNow()).toBe(before + 1);
      expect(await notes()).toEqual([{ name: results[0]!.name, note: 'Alone' }]);
      // A write alone is given the statement's error.
      await expect(createAll(['Refused'])).rejects.toThrow('refused');
      expect(await counterNow()).toBe(before + 1);
    } finally {
      await db.exec('DROP TRIGGER refuse_note ON grouped_note; DROP FUNCTION refuse_note();');
    }
    // The next group guesses from where the counter is.
    const [next] = await createAll(['After']);
    expect(next!.built_for).toBe(next!.name);
  });

  it('store none of a group whose guess another writer made wrong', async () => {
    const before = await counterNow();
    const first = createAll(['Alone']);
    // Another process takes the next name while the first statement is in flight: the group's guess is wrong.
    const moved = db.query(`UPDATE naming_series SET current = current + 1 WHERE prefix = 'CUST'`);
    const group = createAll(['Late 1', 'Late 2']);
    const [[alone], [late1, late2]] = await Promise.all([first, group, moved]);
    expect(number(alone!.name)).toBe(before + 1);
    expect([late1, late2]).toEqual([undefined, undefined]);
    expect(await counterNow()).toBe(before + 2);
    expect(await notes()).toEqual([{ name: alone!.name, note: 'Alone' }]);
  });
});
