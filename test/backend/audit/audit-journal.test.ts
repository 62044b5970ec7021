/**
 * The audit journal of an embedded database on disk: an append resolves only once its sync did, appends
 * during a sync share the next one, the table receives the entries in batches, and entries a crash left
 * in the journal alone (a torn last line included) are loaded when the log is opened again, as one chain.
 */
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AuditJournal } from '../../../backend/audit/audit-journal';
import { AuditLog } from '../../../backend/audit/audit-log';
import { AUDIT_SQL, batchInsertSql, COLUMNS, type Row, toEntry } from '../../../backend/audit/audit-sql';
import { type AuditFacts, chain, GENESIS_HASH, verifyChain } from '../../../backend/audit/chain';
import { openDatabase } from '../../../backend/db/open-database';

const temp = mkdtempSync(join(tmpdir(), 'desk-audit-journal-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const reveal = (record: string): AuditFacts => ({
  at: new Date().toISOString(),
  user: 'Administrator',
  via: 'api_key',
  doctype: 'crm.Customer',
  record,
  fields: ['email'],
  route: 'get',
  client_address: null,
});

/** The journal's text: what lies before its first zero byte (the zeros after it are its room to grow). */
function journalText(path: string): string {
  const file = readFileSync(path);
  const zero = file.indexOf(0);
  return file.subarray(0, zero === -1 ? file.length : zero).toString('utf8');
}

/** Writes `text` right after the journal's text, where its next entry would go, as a crash would leave it. */
function writeAfterText(path: string, text: string): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, text, Buffer.byteLength(journalText(path)));
  } finally {
    closeSync(fd);
  }
}

/** A sync that finishes only when the test says so, counting its calls. */
function heldSync() {
  const pending: (() => void)[] = [];
  return {
    calls: () => pending.length,
    release: () => pending.shift()?.(),
    sync: () => new Promise<void>((resolve) => pending.push(resolve)),
  };
}

describe('the audit journal file', () => {
  it('answers an append once its sync finished, and shares one write and one sync among appends made meanwhile', async () => {
    const held = heldSync();
    const journal = new AuditJournal(join(temp, 'unit.journal'), held.sync);
    const entries = chain({ seq: 0, hash: '0'.repeat(64) }, [reveal('A'), reveal('B'), reveal('C')]);
    let done = 0;
    const first = journal.append([entries[0]!]).then(() => done++);
    const later = [journal.append([entries[1]!]), journal.append([entries[2]!])].map((p) =>
      p.then(() => done++),
    );
    // The first append's line is written as its sync starts; the two made while it runs wait for the next.
    expect(journal.entries().map((e) => e.record)).toEqual(['A']);
    // It holds all three, written or waiting.
    expect(journal.size).toBe(entries.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)) + 1, 0));
    expect(held.calls()).toBe(1);
    await Promise.resolve();
    expect(done).toBe(0);
    held.release();
    await first;
    expect(done).toBe(1);
    // The next sync writes both lines, in order, before it syncs, and answers both only once it is done.
    await new Promise((resolve) => setImmediate(resolve));
    expect(held.calls()).toBe(1);
    expect(journal.entries().map((e) => e.record)).toEqual(['A', 'B', 'C']);
    expect(done).toBe(1);
    held.release();
    await Promise.all(later);
    expect(done).toBe(3);
    await journal.close();
  });

  it('leaves out the lines not written yet when it is emptied, and writes from its start again', async () => {
    const held = heldSync();
    const journal = new AuditJournal(join(temp, 'cleared.journal'), held.sync);
    const entries = chain({ seq: 0, hash: '0'.repeat(64) }, [reveal('A'), reveal('B'), reveal('C')]);
    const first = journal.append([entries[0]!]);
    const second = journal.append([entries[1]!]);
    // Both entries are stored elsewhere now (the table): B's line is never written.
    journal.clear();
    expect(journal.size).toBe(0);
    held.release();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    held.release();
    await second;
    expect(journal.entries()).toEqual([]);
    const third = journal.append([entries[2]!]);
    await new Promise((resolve) => setImmediate(resolve));
    held.release();
    await third;
    expect(journal.entries().map((e) => e.record)).toEqual(['C']);
    expect(journalText(join(temp, 'cleared.journal'))).toBe(`${JSON.stringify(entries[2])}\n`);
    await journal.close();
  });
});

describe('the file of the audit journal', () => {
  it('keeps its length: emptied, it is written from its start again, and what follows the new entries is not read', async () => {
    const path = join(temp, 'reused.journal');
    const journal = new AuditJournal(path);
    const entries = chain({ seq: 0, hash: '0'.repeat(64) }, ['A', 'B', 'C', 'D', 'E', 'F'].map(reveal));
    await journal.append(entries.slice(0, 3));
    const length = statSync(path).size;
    expect(length).toBeGreaterThanOrEqual(1 << 20);
    journal.clear();
    // Emptied: nothing is read, though the old lines are still in the file after its first byte.
    expect(journal.entries()).toEqual([]);
    expect(journal.size).toBe(0);
    // A shorter entry over the first old line: the rest of that line does not parse.
    const shorter = { ...entries[3]!, record: 'D' };
    await journal.append([shorter]);
    expect(journal.entries().map((e) => e.record)).toEqual(['D']);
    // An entry that ends exactly where an old line ended: the next old line parses, but its seq is older.
    journal.clear();
    const old = JSON.stringify(entries[0]);
    const same = {
      ...entries[4]!,
      record: 'E'.padEnd(1 + old.length - JSON.stringify(entries[4]).length, 'E'),
    };
    expect(JSON.stringify(same).length).toBe(old.length);
    await journal.append([same]);
    expect(journal.entries().map((e) => e.seq)).toEqual([5]);
    expect(statSync(path).size).toBe(length);
    await journal.close();
    // Opened again, it reads the same and writes after its entries.
    const reopened = new AuditJournal(path);
    expect(reopened.size).toBe(old.length + 1);
    await reopened.append([entries[5]!]);
    expect(reopened.entries().map((e) => e.seq)).toEqual([5, 6]);
    await reopened.close();
  });
});

describe('rewriting the audit journal', () => {
  it('keeps only the entries given, and appends after them to the new file', async () => {
    const path = join(temp, 'rewritten.journal');
    const journal = new AuditJournal(path);
    const entries = chain({ seq: 0, hash: '0'.repeat(64) }, ['A', 'B', 'C', 'D', 'E'].map(reveal));
    await journal.append(entries.slice(0, 4));
    journal.rewrite(entries.slice(2, 4));
    expect(journal.entries().map((e) => e.record)).toEqual(['C', 'D']);
    expect(journal.size).toBe(Buffer.byteLength(journalText(path)));
    await journal.append([entries[4]!]);
    expect(journal.entries().map((e) => e.record)).toEqual(['C', 'D', 'E']);
    expect(existsSync(`${path}.next`)).toBe(false);
    await journal.close();
    // Opened again, it knows its size.
    const reopened = new AuditJournal(path);
    expect(reopened.size).toBe(Buffer.byteLength(journalText(path)));
    await reopened.close();
  });
});

describe('the batch INSERT of journalled entries', () => {
  it('has one text for any number of entries, and stores each value as given', async () => {
    const db = await openDatabase({ memory: true });
    await db.exec(AUDIT_SQL);
    const odd = { ...reveal('A "quoted", {braced} \\ record'), user: "o'brien, {x}", client_address: null };
    const entries = chain({ seq: 0, hash: GENESIS_HASH }, [
      odd,
      reveal('B'),
      { ...reveal('C'), fields: ['a"b', 'c,d'] },
    ]);
    expect(batchInsertSql(entries.slice(0, 1))[0]).toBe(batchInsertSql(entries)[0]);
    await db.query(...batchInsertSql(entries));
    const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM audit_log ORDER BY seq`);
    expect(rows.map(toEntry)).toEqual(entries);
    expect(await verifyChain(rows.map(toEntry))).toMatchObject({ ok: true, entries: 3 });
    await db.close();
  }, 60_000);
});

describe('the log of an embedded database on disk', () => {
  it('loads appends into the table, and on open what a crash left in the journal alone', async () => {
    const dataDir = join(temp, 'data');
    const db = await openDatabase({ dataDir });
    let log = await AuditLog.open(db);
    const written = await log.append([reveal('CUST-00001'), reveal('CUST-00002')]);
    expect((await log.list()).data.map((e) => e.seq)).toEqual([1, 2]);
    await log.close();
    // The journal holds nothing the table holds.
    expect(journalText(join(dataDir, 'audit.journal'))).toBe('');

    // A reveal answered just before a crash: its entry in the journal, not yet in the table; then a
    // line whose write the crash cut short (never synced, so never answered).
    const [lost] = chain({ seq: 2, hash: written[1]!.hash }, [reveal('CUST-00003')]);
    writeAfterText(join(dataDir, 'audit.journal'), `${JSON.stringify(lost)}\n{"seq":4,"at":"20`);
    log = await AuditLog.open(db);
    const { data } = await log.list();
    expect(data.map((e) => [e.seq, e.record])).toEqual([
      [1, 'CUST-00001'],
      [2, 'CUST-00002'],
      [3, 'CUST-00003'],
    ]);
    expect(journalText(join(dataDir, 'audit.journal'))).toBe('');
    // The chain goes on after the recovered entry, and verifies as one.
    const [next] = await log.append([reveal('CUST-00001')]);
    expect(next).toMatchObject({ seq: 4, prev_hash: lost!.hash });
    expect(await verifyChain(log.entries())).toMatchObject({ ok: true, entries: 4 });
    await log.close();
    await db.close();
  }, 120_000);

  it('loads the entries journalled during a load with those after them, one batch a delay later', async () => {
    const db = await openDatabase({ dataDir: join(temp, 'steady') });
    // Counts the loads into the table, and holds the first until the test lets it go.
    const loads: number[] = [];
    let loaded = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const counted: typeof db = {
      ...db,
      identity: db.identity ?? db,
      async query<T>(sql: string, params?: unknown[]) {
        if (/^INSERT INTO audit_log/.test(sql)) {
          loads.push((params![0] as unknown[]).length); // the entries: one element of each array each
          if (loads.length === 1) await held;
          const result = await db.query<T>(sql, params);
          loaded += 1;
          return result;
        }
        return db.query<T>(sql, params);
      },
    };
    const log = await AuditLog.open(counted);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await log.append([reveal('A')]);
      await vi.advanceTimersByTimeAsync(50); // the first load starts, and is held
      expect(loads).toHaveLength(1);
      await log.append([reveal('B')]);
      await log.append([reveal('C')]);
      release();
      // (vi.waitFor would move the fake clock on.)
      while (loaded < 1) await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(loads).toHaveLength(1); // B and C wait for the next load
      await vi.advanceTimersByTimeAsync(50);
      while (loaded < 2) await new Promise((resolve) => setImmediate(resolve));
      expect(loads).toEqual([1, 2]); // one INSERT for both
    } finally {
      vi.useRealTimers();
    }
    expect((await log.list()).data.map((e) => e.record)).toEqual(['A', 'B', 'C']);
    await log.close();
    await db.close();
  }, 120_000);
});
