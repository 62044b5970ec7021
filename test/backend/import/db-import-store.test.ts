/**
 * The database import store over PGlite: a batch that fails part-way (a process stopped between two of its
 * inserts) leaves no record and no settled row behind, and the batch settled again afterwards creates each
 * record once; rows settled before are skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ticket } from '../../../backend/apps/support/doctypes';
import { DbRecordStore } from '../../../backend/data/record-store';
import type { RecordStore } from '../../../backend/data/records';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { DbImportStore } from '../../../backend/import/db-import-store';

let db: Database;
let records: DbRecordStore;
beforeAll(async () => {
  db = await openDatabase({ memory: true });
  records = new DbRecordStore(db);
});
afterAll(async () => {
  await db?.close();
});

const doctype = { ...Ticket, app: 'support' };
const rows = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ row: from + i, data: { subject: `Row ${from + i}` } }));
const stored = () => records.count(doctype.name);

describe('DbImportStore', () => {
  it('rolls a batch that failed part-way back entirely, then settles it once', async () => {
    // The third insert of the batch fails, as if the process had stopped there.
    let inserts = 0;
    const failing = (handle: Pick<Database, 'query'>): RecordStore => {
      const inner = records.over(handle);
      return Object.assign(Object.create(inner) as RecordStore, {
        insert: (d: typeof doctype, data: Record<string, unknown>) => {
          inserts++;
          if (inserts === 3) throw new Error('stopped');
          return inner.insert(d, data);
        },
      });
    };
    const store = new DbImportStore(db, failing);
    await store.migrate();
    await store.open({ id: 'batch-0001', doctype: doctype.name, owner: 'ann', fingerprint: 'f', total: 6 });

    await expect(store.settle('batch-0001', doctype, rows(2, 6))).rejects.toThrow('stopped');
    expect(await stored()).toBe(0);
    expect(await store.settledRows('batch-0001')).toEqual(new Set());

    const created = await store.settle('batch-0001', doctype, [
      ...rows(2, 5),
      { row: 6, problems: [{ row: 6, field: 'subject', code: 'required', message: 'Subject is required.' }] },
    ]);
    expect(created.map((r) => r.subject)).toEqual(['Row 2', 'Row 3', 'Row 4', 'Row 5']);
    expect(await stored()).toBe(4);
    expect(await store.counts('batch-0001')).toEqual({ created: 4, failed: 1 });
    expect(await store.problems('batch-0001', 10)).toEqual([
      { row: 6, field: 'subject', code: 'required', message: 'Subject is required.' },
    ]);

    // Settling the same rows again (a resumed run that re-read them) creates nothing more.
    expect(await store.settle('batch-0001', doctype, rows(2, 6))).toEqual([]);
    expect(await stored()).toBe(4);
  });

  it('keeps an existing import as it was when it is opened again', async () => {
    const store = new DbImportStore(db, (handle) => records.over(handle));
    const job = { id: 'keep-0001', doctype: doctype.name, owner: 'ann', fingerprint: 'one', total: 3 };
    expect(await store.open(job)).toEqual({ ...job, finished: false });
    expect(await store.open({ ...job, owner: 'bob', fingerprint: 'two' })).toEqual({
      ...job,
      finished: false,
    });
    await store.finish(job.id);
    expect((await store.get(job.id))?.finished).toBe(true);
  });
});
