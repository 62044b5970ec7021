/**
 * CSV import against the real MONOLITH app over PGlite: the preview reports exactly the rows the data API
 * would refuse, with their codes, and writes nothing; the import creates every other row once, even when
 * run again or resumed after it was stopped between batches; flagged fields are still encrypted at rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planImport } from '../../../backend/import/plan-import';
import { type ImportProgress, importRoutes } from '../../../backend/import/routes';
import type { RowProblem } from '../../../backend/import/row-check';
import { runImport } from '../../../backend/import/run-import';
import { recordAccess } from '../../../backend/permissions/record-access';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, makeAppsFixture, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let customers: string[];

const json = async <T>(res: Response) => (await res.json()) as T;
const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const line = (cells: string[]) => `${cells.map(cell).join(',')}\r\n`;

/** The 10 bad rows of the big file, by data-row index (0-based), and the code each must fail with. */
const BAD: Record<number, { field: string; code: string }> = {
  49: { field: 'subject', code: 'required' },
  119: { field: 'status', code: 'invalid_option' },
  199: { field: 'priority', code: 'invalid_option' },
  299: { field: 'customer', code: 'link_not_found' },
  399: { field: 'customer', code: 'link_not_found' },
  499: { field: 'due_date', code: 'invalid_format' },
  599: { field: 'urgent', code: 'invalid_type' },
  699: { field: 'subject', code: 'too_big' },
  799: { field: '(row)', code: 'column_count' },
  899: { field: 'subject', code: 'required' },
};
/** Spreadsheet row numbers of the bad rows: the header is row 1. */
const BAD_ROWS = Object.keys(BAD).map((i) => Number(i) + 2);

/** 1,000 tickets, 10 of them bad (see {@link BAD}); `tag` makes the subjects of one file distinct. */
function ticketsCsv(tag: string): string {
  let csv = line(['Subject', 'Customer', 'Status', 'Priority', 'Due date', 'Urgent', 'Description']);
  for (let i = 0; i < 1000; i++) {
    const row = [`${tag} ${i}`, customers[i % 2]!, 'Open', 'Low', '2026-12-01', i % 3 ? 'No' : 'Yes', ''];
    if (i === 49 || i === 899) row[0] = '';
    if (i === 119) row[2] = 'Pending';
    if (i === 199) row[3] = 'Urgent!';
    if (i === 299) row[1] = 'CUST-99999';
    if (i === 399) row[1] = 'nobody';
    if (i === 499) row[4] = '2026-13-45';
    if (i === 599) row[5] = 'maybe';
    if (i === 699) row[0] = 'x'.repeat(141);
    if (i === 799) row.pop();
    csv += line(row);
  }
  return csv;
}

const preview = (doctype: string, body: unknown, headers?: Record<string, string>) =>
  t.request('POST', `/api/import/${doctype}/preview`, { body, headers });
const runImportRequest = (doctype: string, body: unknown, headers?: Record<string, string>) =>
  t.request('POST', `/api/import/${doctype}`, { body, headers });
const ticketCount = (subjectPrefix: string) =>
  t.ctx.records
    .list(t.ctx.doctypes.get('support.Ticket')!, {
      filters: [{ field: 'subject', op: 'like', value: `${subjectPrefix} %` }],
      start: 0,
      pageLength: 1,
      orderBy: [],
    })
    .then((p) => p.total);

/** The plan of the import `importId` of `csv` into `doctypeName`, run as the Administrator. */
async function adminPlan(doctypeName: string, csv: string, importId: string) {
  const doctype = t.ctx.doctypes.get(doctypeName)!;
  const principal = { user: 'Administrator', via: 'api_key' as const, roles: ['System Manager'] };
  return planImport(t.ctx.imports!, {
    doctype,
    access: await recordAccess(t.ctx.permissions, principal.roles, doctype),
    principal,
    csv,
    mapping: {},
    importId,
  });
}

/** Starts the import `importId` of `csv` as the Administrator and stops it after its first batch. */
async function stopAfterFirstBatch(csv: string, importId: string): Promise<void> {
  const plan = await adminPlan('support.Ticket', csv, importId);
  const stop = new AbortController();
  const deps = {
    imports: t.ctx.imports!,
    integrity: { records: t.ctx.records, doctypes: t.ctx.doctypes },
    observers: [],
  };
  await expect(
    runImport(deps, plan, { signal: stop.signal, afterBatch: () => stop.abort() }),
  ).rejects.toThrow();
}

beforeAll(async () => {
  t = await createTestApp({
    appsDir: makeAppsFixture({ crm: true, stock: true, support: false }),
    config: { apps: ['crm', 'stock', 'support'] },
  });
  customers = [];
  for (const customer_name of ['Acme', 'Globex']) {
    const res = await t.request('POST', '/api/resource/crm.Customer', { body: { customer_name } });
    customers.push((await json<{ data: { name: string } }>(res)).data.name);
  }
});
afterAll(async () => {
  await t?.close();
});

describe('preview', () => {
  it('names exactly the 10 bad rows of 1,000, each with its field and code, and writes nothing', async () => {
    const res = await preview('support.Ticket', { csv: ticketsCsv('Preview') });
    expect(res.status).toBe(200);
    const { data } = await json<{
      data: { total: number; valid: number; invalid: number; errors: RowProblem[]; mapping: unknown };
    }>(res);
    expect(data).toMatchObject({ total: 1000, valid: 990, invalid: 10 });
    expect(data.mapping).toEqual([
      { column: 'Subject', field: 'subject' },
      { column: 'Customer', field: 'customer' },
      { column: 'Status', field: 'status' },
      { column: 'Priority', field: 'priority' },
      { column: 'Due date', field: 'due_date' },
      { column: 'Urgent', field: 'urgent' },
      { column: 'Description', field: 'description' },
    ]);
    expect(data.errors.map((e) => e.row)).toEqual(BAD_ROWS);
    expect(data.errors.map(({ field, code }) => ({ field, code }))).toEqual(Object.values(BAD));
    // Messages name the field and the rule, never the value sent.
    expect(JSON.stringify(data.errors)).not.toMatch(/Pending|Urgent!|nobody|maybe|2026-13-45/);
    expect(await ticketCount('Preview')).toBe(0);
  });

  it('checks numbers, minimums and unique values against the store and the rows above', async () => {
    await t.request('POST', '/api/resource/stock.Item', { body: { item_code: 'EXIST-1', item_name: 'Old' } });
    const csv =
      'Item Code,Item Name,Quantity,Price\r\n' +
      'NEW-1,Bolt,10,1.5\r\nNEW-2,Nut,ten,1\r\nNEW-3,Washer,-1,1\r\nNEW-1,Bolt again,1,1\r\nEXIST-1,Clash,1,1\r\n';
    const { data } = await json<{ data: { valid: number; errors: RowProblem[] } }>(
      await preview('stock.Item', { csv }),
    );
    expect(data.valid).toBe(1);
    expect(data.errors).toEqual([
      expect.objectContaining({ row: 3, field: 'quantity', code: 'invalid_type' }),
      expect.objectContaining({ row: 4, field: 'quantity', code: 'too_small' }),
      expect.objectContaining({ row: 5, field: 'item_code', code: 'duplicate' }),
      expect.objectContaining({ row: 6, field: 'item_code', code: 'duplicate' }),
    ]);
  });

  it('reads a BOM, quoted commas, quotes and line breaks, and a mapping sent by the client', async () => {
    const csv = '\uFEFFTitle,Notes,ID\r\n"Comma, ""quoted""","two\r\nlines",TKT-1\r\n';
    const res = await preview('support.Ticket', { csv, mapping: { title: 'subject', notes: 'description' } });
    const { data } = await json<{ data: { valid: number; mapping: unknown } }>(res);
    expect(data.mapping).toEqual([
      { column: 'Title', field: 'subject' },
      { column: 'Notes', field: 'description' },
      { column: 'ID', field: null },
    ]);
    expect(data.valid).toBe(1);
    const imported = await json<{ data: ImportProgress }>(
      await runImportRequest('support.Ticket', { csv, mapping: { title: 'subject', notes: 'description' } }),
    );
    expect(imported.data).toMatchObject({ status: 'done', created: 1, failed: 0 });
    const page = await t.ctx.records.list(t.ctx.doctypes.get('support.Ticket')!, {
      filters: [{ field: 'subject', op: '=', value: 'Comma, "quoted"' }],
      start: 0,
      pageLength: 2,
      orderBy: [],
    });
    expect(page.data).toEqual([expect.objectContaining({ description: 'two\r\nlines' })]);
  });

  it('refuses a mapping to no field or two columns to one field (422), and a broken file (400)', async () => {
    const unknown = await preview('support.Ticket', { csv: 'A\r\nx\r\n', mapping: { a: 'nope' } });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ error: { code: 'invalid_mapping' } });
    const twice = await preview('support.Ticket', {
      csv: 'Subject,Title\r\nx,y\r\n',
      mapping: { title: 'subject' },
    });
    expect(await twice.json()).toMatchObject({
      error: { code: 'invalid_mapping', fields: [{ field: 'Title', code: 'duplicate_mapping' }] },
    });
    const open = await preview('support.Ticket', { csv: 'Subject\r\n"never closed\r\n' });
    expect(open.status).toBe(400);
    expect(await open.json()).toMatchObject({ error: { code: 'invalid_csv' } });
  });

  it('is refused (403) to a user who may not create the DocType', async () => {
    const authorization = await userWithRoles(t.ctx, 'sales-only', ['Sales User']);
    const res = await preview('support.Ticket', { csv: 'Subject\r\nx\r\n' }, { authorization });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'forbidden' } });
  });
});

describe('import', () => {
  it('creates the 990 good rows once; running it again creates none', async () => {
    const csv = ticketsCsv('Once');
    const first = await runImportRequest('support.Ticket', { csv, import_id: 'once-0001' });
    expect(first.status).toBe(200);
    const { data } = await json<{ data: ImportProgress }>(first);
    expect(data).toMatchObject({ status: 'done', total: 1000, done: 1000, created: 990, failed: 10 });
    expect([...new Set(data.errors.map((e) => e.row))]).toEqual(BAD_ROWS);
    expect(await ticketCount('Once')).toBe(990);

    const again = await json<{ data: ImportProgress }>(
      await runImportRequest('support.Ticket', { csv, import_id: 'once-0001' }),
    );
    expect(again.data).toMatchObject({ status: 'done', created: 990, failed: 10 });
    expect(await ticketCount('Once')).toBe(990);
  });

  it('resumes an import stopped after its first batch and ends with 990 records', async () => {
    const csv = ticketsCsv('Resumed');
    await stopAfterFirstBatch(csv, 'resumed-0001');
    // The first batch (100 rows, row 51 of them bad) is settled, the rest not.
    expect(await ticketCount('Resumed')).toBe(99);
    const stopped = await json<{ data: ImportProgress }>(
      await t.request('GET', '/api/import/support.Ticket/resumed-0001'),
    );
    expect(stopped.data).toMatchObject({ status: 'stopped', total: 1000, done: 100, created: 99, failed: 1 });

    const resumed = await json<{ data: ImportProgress }>(
      await runImportRequest('support.Ticket', { csv, import_id: 'resumed-0001' }),
    );
    expect(resumed.data).toMatchObject({ status: 'done', done: 1000, created: 990, failed: 10 });
    expect(await ticketCount('Resumed')).toBe(990);
  });

  it('shows a stopped import in /metrics as an unfinished job with its rows remaining', async () => {
    const metric = async (series: string) => {
      const text = await (await t.request('GET', '/metrics')).text();
      const found = text.split('\n').find((l) => l.startsWith(`${series} `));
      return found === undefined ? undefined : Number(found.slice(series.length + 1));
    };
    const unfinished = 'platform_jobs_unfinished{kind="import"}';
    const remaining = 'platform_job_items_remaining{kind="import"}';
    const processed = 'platform_job_items_processed_total{kind="import"}';
    const before = {
      unfinished: await metric(unfinished),
      remaining: await metric(remaining),
      processed: await metric(processed),
    };
    await stopAfterFirstBatch(ticketsCsv('Metered'), 'metered-0001');
    expect(await metric(unfinished)).toBe((before.unfinished ?? 0) + 1);
    expect(await metric(remaining)).toBe((before.remaining ?? 0) + 900);
    expect(await metric(processed)).toBe((before.processed ?? 0) + 100);
    await runImportRequest('support.Ticket', { csv: ticketsCsv('Metered'), import_id: 'metered-0001' });
    expect(await metric(unfinished)).toBe(before.unfinished ?? 0);
    expect(await metric(remaining)).toBe(before.remaining ?? 0);
    expect(await metric(processed)).toBe((before.processed ?? 0) + 1000);
  });

  it('answers 202 at once with Prefer: respond-async, and the progress until done', async () => {
    const csv = ticketsCsv('Async');
    const res = await runImportRequest(
      'support.Ticket',
      { csv, import_id: 'async-0001' },
      { prefer: 'respond-async' },
    );
    expect(res.status).toBe(202);
    expect(res.headers.get('preference-applied')).toBe('respond-async');
    expect(res.headers.get('location')).toBe('/api/import/support.Ticket/async-0001');
    let progress = (await json<{ data: ImportProgress }>(res)).data;
    expect(progress).toMatchObject({ status: 'running', total: 1000 });
    while (progress.status === 'running') {
      await new Promise((resolve) => setImmediate(resolve));
      progress = (
        await json<{ data: ImportProgress }>(await t.request('GET', '/api/import/support.Ticket/async-0001'))
      ).data;
    }
    expect(progress).toMatchObject({ status: 'done', created: 990, failed: 10 });
    expect(await ticketCount('Async')).toBe(990);
  });

  it('refuses resuming with another file (409), and shows an import to its owner only (404)', async () => {
    const changed = await runImportRequest('support.Ticket', {
      csv: ticketsCsv('Other'),
      import_id: 'once-0001',
    });
    expect(changed.status).toBe(409);
    expect(await changed.json()).toMatchObject({ error: { code: 'import_mismatch' } });
    const authorization = await userWithRoles(t.ctx, 'agent', ['Support Agent']);
    const foreign = await t.request('GET', '/api/import/support.Ticket/once-0001', {
      headers: { authorization },
    });
    expect(foreign.status).toBe(404);
    expect(await ticketCount('Other')).toBe(0);
  });

  it('keeps personal data encrypted at rest: the stored row holds no imported email in clear', async () => {
    const csv = 'Customer Name,Email,Phone\r\nImported Ltd,imported@example.com,+44 20 7946 0000\r\n';
    const { data } = await json<{ data: ImportProgress }>(await runImportRequest('crm.Customer', { csv }));
    expect(data).toMatchObject({ status: 'done', created: 1 });
    const { rows } = await t.ctx.db.query<{ data: unknown }>(
      "SELECT data FROM records WHERE doctype = 'crm.Customer' AND data->>'customer_name' = 'Imported Ltd'",
    );
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0]!.data)).not.toContain('imported@example.com');
    const read = await t.ctx.records.list(t.ctx.doctypes.get('crm.Customer')!, {
      filters: [{ field: 'email', op: '=', value: 'imported@example.com' }],
      start: 0,
      pageLength: 2,
      orderBy: [],
    });
    expect(read.data).toEqual([expect.objectContaining({ customer_name: 'Imported Ltd' })]);
  });
});

describe('an import racing a create', () => {
  it('fails the row whose unique value a create stored after the check, and imports the others', async () => {
    const doctype = t.ctx.doctypes.get('stock.Item')!;
    const csv = 'Item Code,Item Name\r\nRACE-1,First\r\nRACE-2,Second\r\nRACE-3,Third\r\n';
    const plan = await adminPlan('stock.Item', csv, 'race-0001');
    // Between the batch's check and its commit, another user creates RACE-2.
    const imports = t.ctx.imports!;
    let raced = 0;
    const racing: typeof imports = Object.create(imports);
    racing.settle = async (...args: Parameters<typeof imports.settle>) => {
      if (raced++ === 0) {
        const res = await t.request('POST', '/api/resource/stock.Item', {
          body: { item_code: 'RACE-2', item_name: 'Created meanwhile' },
        });
        expect(res.status).toBe(201);
      }
      return imports.settle(...args);
    };
    const deps = {
      imports: racing,
      integrity: { records: t.ctx.records, doctypes: t.ctx.doctypes },
      observers: [],
    };
    await runImport(deps, plan);

    expect(raced).toBe(2); // refused once by the unique index, then settled
    expect(await imports.problems('race-0001', 10)).toEqual([
      expect.objectContaining({ row: 3, field: 'item_code', code: 'duplicate' }),
    ]);
    const page = await t.ctx.records.list(doctype, {
      filters: [{ field: 'item_code', op: 'like', value: 'RACE-%' }],
      start: 0,
      pageLength: 10,
      orderBy: [{ field: 'item_code', direction: 'asc' }],
    });
    expect(page.data.map((r) => [r.item_code, r.item_name])).toEqual([
      ['RACE-1', 'First'],
      ['RACE-2', 'Created meanwhile'],
      ['RACE-3', 'Third'],
    ]);
  });
});

// The routes are also what a MACROSERVICE service mounts; building them over the context must not need more.
it('builds over a context’s records, DocTypes, rules and import store', () => {
  expect(() => importRoutes({ ...t.ctx, imports: t.ctx.imports! })).not.toThrow();
});
