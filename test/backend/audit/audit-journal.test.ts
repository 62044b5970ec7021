/**
 * The audit journal of an embedded database on disk: an append resolves only once its sync did, appends
 * during a sync share the next one, the table receives the entries in batches, and entries a crash left
 * in the journal alone (a torn last line included) are loaded when the log is opened again, as one chain.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditJournal } from '../../../backend/audit/audit-journal';
import { AuditLog } from '../../../backend/audit/audit-log';
import { type AuditFacts, chain, verifyChain } from '../../../backend/audit/chain';
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
  it('answers an append once its sync finished, and shares one sync among appends made meanwhile', async () => {
    const held = heldSync();
    const journal = new AuditJournal(join(temp, 'unit.journal'), held.sync);
    const entries = chain({ seq: 0, hash: '0'.repeat(64) }, [reveal('A'), reveal('B'), reveal('C')]);
    let done = 0;
    const first = journal.append([entries[0]!]).then(() => done++);
    const later = [journal.append([entries[1]!]), journal.append([entries[2]!])].map((p) =>
      p.then(() => done++),
    );
    // Written at once, in order, before any sync finished.
    expect(journal.entries().map((e) => e.record)).toEqual(['A', 'B', 'C']);
    expect(held.calls()).toBe(1);
    await Promise.resolve();
    expect(done).toBe(0);
    held.release();
    await first;
    expect(done).toBe(1);
    // The two appends made while the first sync ran wait for one more, together.
    await new Promise((resolve) => setImmediate(resolve));
    expect(held.calls()).toBe(1);
    held.release();
    await Promise.all(later);
    expect(done).toBe(3);
    await journal.close();
  });
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
    expect(readFileSync(join(dataDir, 'audit.journal'), 'utf8')).toBe('');

    // A reveal answered just before a crash: its entry in the journal, not yet in the table; then a
    // line whose write the crash cut short (never synced, so never answered).
    const [lost] = chain({ seq: 2, hash: written[1]!.hash }, [reveal('CUST-00003')]);
    appendFileSync(join(dataDir, 'audit.journal'), `${JSON.stringify(lost)}\n{"seq":4,"at":"20`);
    log = await AuditLog.open(db);
    const { data } = await log.list();
    expect(data.map((e) => [e.seq, e.record])).toEqual([
      [1, 'CUST-00001'],
      [2, 'CUST-00002'],
      [3, 'CUST-00003'],
    ]);
    expect(readFileSync(join(dataDir, 'audit.journal'), 'utf8')).toBe('');
    // The chain goes on after the recovered entry, and verifies as one.
    const [next] = await log.append([reveal('CUST-00001')]);
    expect(next).toMatchObject({ seq: 4, prev_hash: lost!.hash });
    expect(await verifyChain(log.entries())).toMatchObject({ ok: true, entries: 4 });
    await log.close();
    await db.close();
  }, 120_000);
});
