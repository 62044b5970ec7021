/**
 * The audit log narrowed to a time range and exported as CSV (docs/operators.md#the-audit-log): `from` and
 * `to` make a half-open range on every query, and `GET /api/audit/export.csv` writes every entry a query
 * matches, past a page, with the hashes a copy is verified by.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, type AuditFacts, verifyChain } from '../../../backend/audit/chain';
import { parseCsv } from '../../../backend/import/csv';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let salesManager: string;

/** More than one page of the export (1,000 entries a page). */
const ENTRIES = 2_300;
const DAY = 86_400_000;
/** The first entry's time: the entries are a minute apart from it. */
const T0 = Date.parse('2026-03-01T00:00:00Z');

function facts(i: number): AuditFacts {
  return {
    at: new Date(T0 + i * 60_000).toISOString(),
    user: i % 2 === 0 ? 'even-reader' : 'odd-reader',
    via: 'session',
    doctype: 'crm.Customer',
    record: `CUST-${String(i).padStart(5, '0')}`,
    fields: ['email', 'phone'],
    route: 'get',
    client_address: i === 7 ? '=HYPERLINK("http://evil")' : '127.0.0.1',
  };
}

async function json<T>(res: Response, status = 200): Promise<T> {
  expect(`${res.status} ${res.status === status ? '' : await res.clone().text()}`).toBe(`${status} `);
  return (await res.json()) as T;
}

/** The entries a CSV export holds, read back as the API gives them. */
function entriesOf(csv: string): AuditEntry[] {
  const table = parseCsv(csv);
  expect(table.header).toEqual([
    'seq',
    'at',
    'user',
    'via',
    'doctype',
    'record',
    'fields',
    'route',
    'client_address',
    'prev_hash',
    'hash',
  ]);
  return table.rows.map((row) => {
    const cell = (name: string) => row.cells[table.header.indexOf(name)]!;
    return {
      seq: Number(cell('seq')),
      at: cell('at'),
      user: cell('user'),
      via: cell('via'),
      doctype: cell('doctype'),
      record: cell('record'),
      fields: cell('fields').split(' '),
      route: cell('route'),
      client_address: cell('client_address'),
      prev_hash: cell('prev_hash'),
      hash: cell('hash'),
    };
  });
}

beforeAll(async () => {
  t = await createTestApp();
  salesManager = await userWithRoles(t.ctx, 'audit-export-manager', ['Sales Manager']);
  for (let i = 0; i < ENTRIES; i += 500) {
    await t.ctx.audit!.append(Array.from({ length: Math.min(500, ENTRIES - i) }, (_, j) => facts(i + j)));
  }
}, 60_000);
afterAll(() => t.close());

describe('GET /api/audit with from and to', () => {
  it('keeps the entries from `from` up to, not including, `to`', async () => {
    const from = new Date(T0 + 10 * 60_000).toISOString();
    const to = new Date(T0 + 20 * 60_000).toISOString();
    const page = await json<{ data: AuditEntry[]; total: number }>(
      await t.request('GET', `/api/audit?from=${from}&to=${to}`),
    );
    expect(page.total).toBe(10);
    expect(page.data.map((e) => e.record)).toEqual(
      Array.from({ length: 10 }, (_, i) => `CUST-${String(10 + i).padStart(5, '0')}`),
    );
  });

  it('takes a date as midnight UTC and an offset as written, with the other filters', async () => {
    // 2026-03-01T01:00+01:00 is midnight UTC: the user's odd entries of the first day.
    const page = await json<{ total: number }>(
      await t.request('GET', '/api/audit?from=2026-03-01T01:00:00%2B01:00&to=2026-03-02&user=odd-reader'),
    );
    expect(page.total).toBe(720);
  });

  it('refuses a time that is not ISO 8601, and a range that ends before it starts, with 400 invalid_query', async () => {
    for (const query of [
      'from=yesterday',
      'to=2026-03-01T00:00',
      'from=2026-13-01',
      'from=2026-03-02&to=2026-03-01',
      // A day the month does not have, which Date.parse would roll into the next month.
      'from=2026-02-30',
      'to=2026-04-31T00:00:00Z',
    ]) {
      const body = await json<{ error: { code: string; message: string } }>(
        await t.request('GET', `/api/audit?${query}`),
        400,
      );
      expect(body.error.code, query).toBe('invalid_query');
    }
  });

  it('takes a bound before year 1 (which the database has no timestamp for) as the start of time, never a 500', async () => {
    // 0000-01-01 and an offset pulling 0001-01-01 back into year 0 were 500 internal_error (22008).
    for (const from of ['0000-01-01', '0001-01-01T00:30:00%2B01:00']) {
      const page = await json<{ total: number }>(
        await t.request('GET', `/api/audit?from=${from}&limit_page_length=0`),
      );
      expect(page.total, from).toBe(ENTRIES);
      const csv = await t.request('GET', `/api/audit/export.csv?from=${from}`);
      expect(csv.status, from).toBe(200);
      expect(entriesOf(await csv.text())).toHaveLength(ENTRIES);
    }
    const none = await json<{ total: number }>(await t.request('GET', '/api/audit?to=0000-06-01'));
    expect(none.total).toBe(0);
  });

  it('takes limit_start up to the 1,000,000,000 its message names, and refuses one past it', async () => {
    const last = await json<{ data: unknown[]; total: number }>(
      await t.request('GET', '/api/audit?limit_start=1000000000'),
    );
    expect(last).toEqual({ data: [], total: ENTRIES });
    const past = await json<{ error: { code: string; message: string } }>(
      await t.request('GET', '/api/audit?limit_start=1000000001'),
      400,
    );
    expect(past.error).toEqual({
      code: 'invalid_paging',
      message: 'limit_start must be an integer from 0 to 1000000000.',
    });
  });
});

describe('GET /api/audit/export.csv', () => {
  it('writes every entry, past one page, in chain order, and the copy verifies', async () => {
    const res = await t.request('GET', '/api/audit/export.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(res.headers.get('x-total-count')).toBe(String(ENTRIES));
    const entries = entriesOf(await res.text());
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: ENTRIES }, (_, i) => i + 1));
    const stored = await t.ctx.audit!.list({ limit: 5 });
    expect(entries.slice(0, 5)).toEqual(stored.data);
    // A cell a spreadsheet would run is written inert; the rest of the chain verifies as stored.
    expect(entries[7]!.client_address).toBe(`'=HYPERLINK("http://evil")`);
    expect(await verifyChain(entries.slice(0, 7))).toMatchObject({ ok: true, entries: 7 });
  });

  it('writes what the filters match, newest first when asked', async () => {
    const res = await t.request(
      'GET',
      `/api/audit/export.csv?user=even-reader&order=newest&from=${new Date(T0 + DAY).toISOString()}`,
    );
    const entries = entriesOf(await res.text());
    // Minutes 1,440 to 2,299, the even ones.
    expect(res.headers.get('x-total-count')).toBe('430');
    expect(entries).toHaveLength(430);
    expect(entries[0]!.record).toBe('CUST-02298');
    expect(entries.at(-1)!.record).toBe('CUST-01440');
    expect(entries.every((e) => e.user === 'even-reader')).toBe(true);
  });

  it('refuses anyone but a System Manager with 403 forbidden, and a bad range with 400', async () => {
    const refused = await t.request('GET', '/api/audit/export.csv', {
      headers: { authorization: salesManager },
    });
    expect((await json<{ error: { code: string } }>(refused, 403)).error.code).toBe('forbidden');
    const bad = await t.request('GET', '/api/audit/export.csv?from=soon');
    expect((await json<{ error: { code: string } }>(bad, 400)).error.code).toBe('invalid_query');
  });
});
