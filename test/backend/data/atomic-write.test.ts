/**
 * A record write and what is stored with it commit together (docs/operators.md#disk-full): when the history
 * entry of a create cannot be written because the device is full (PostgreSQL's SQLSTATE 53100), the answer is
 * 507 `insufficient_storage` and neither the record nor its entry is kept; the next create is stored.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isDiskFull } from '../../../backend/http/disk-full';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { errorOf, recordCount } from '../security/jwe-support';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const historyEntries = async () =>
  Number(
    (
      await t.ctx.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM record_history WHERE doctype = 'crm.Lead'",
      )
    ).rows[0]!.n,
  );

/** What PGlite throws when a table cannot grow on a full device. */
function diskFull(): Error {
  return Object.assign(new Error('could not extend file "base/5/16414": No space left on device'), {
    code: '53100',
  });
}

describe('a record write on a full device', () => {
  it('answers 507 insufficient_storage and keeps neither the record nor its history entry', async () => {
    const history = t.ctx.history!;
    // The process's first create of a DocType runs in a transaction (it does not know the counter yet), so
    // the entry goes through `record`; the one-statement create is refused by the database itself in
    // write-companion.test.ts.
    vi.spyOn(history, 'record').mockRejectedValueOnce(diskFull());
    const records = await recordCount(t.ctx, 'crm.Lead');
    const entries = await historyEntries();
    const refused = await t.request('POST', '/api/resource/crm.Lead', { body: { lead_name: 'No room' } });
    expect(refused.status).toBe(507);
    expect((await errorOf(refused)).code).toBe('insufficient_storage');
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(records);
    expect(await historyEntries()).toBe(entries);

    const stored = await t.request('POST', '/api/resource/crm.Lead', { body: { lead_name: 'Room again' } });
    expect(stored.status).toBe(201);
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(records + 1);
    expect(await historyEntries()).toBe(entries + 1);
  });

  it('recognises a full device by Node code, SQLSTATE or message, also as the cause of another error', () => {
    expect(isDiskFull(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFull(diskFull())).toBe(true);
    expect(isDiskFull(new Error('initdb failed', { cause: diskFull() }))).toBe(true);
    expect(isDiskFull(new Error('could not write: No space left on device'))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(false);
    expect(isDiskFull(undefined)).toBe(false);
  });
});
