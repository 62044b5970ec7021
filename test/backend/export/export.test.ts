/**
 * The list's CSV export, `GET /api/resource/<DocType>/export.csv` (docs/http-api.md#csv-export), through the
 * real app (MONOLITH): rows past one page, the list's filters, sort and fields, `pii` fields masked for a
 * reader without `read_pii`, 403 without `read`, formula-looking cells neutralised.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PII_MASK } from '../../../backend/permissions/mask';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let sales: string;
let stock: string;
/** More than two pages of the export (500 records each). */
const BULK = 1_050;

const as = (authorization: string) => ({ headers: { authorization } });
const exportPath = (doctype: string, params: Record<string, string> = {}) =>
  `/api/resource/${doctype}/export.csv?${new URLSearchParams(params)}`;
const lines = async (res: Response) => (await res.text()).split('\r\n').slice(0, -1);

beforeAll(async () => {
  t = await createTestApp();
  sales = await userWithRoles(t.ctx, 'sales.user', ['Sales User']);
  stock = await userWithRoles(t.ctx, 'stock.user', ['Stock User']);
  // Stored in one statement: the same rows as through the API, in a fraction of the time.
  await t.ctx.db.query(
    `INSERT INTO records (doctype, name, data)
     SELECT 'crm.Customer', 'CUST-' || (90000 + i),
            jsonb_build_object('customer_name', 'Bulk ' || lpad(i::text, 4, '0'), 'email', 'bulk' || i || '@example.com',
                               'status', CASE WHEN i % 3 = 0 THEN 'Inactive' ELSE 'Active' END)
       FROM generate_series(1, $1::int) AS i`,
    [BULK],
  );
  for (const name of ['=HYPERLINK("http://evil.test")', '+1 555', '-2', '@SUM(A1)', 'Plain, "quoted"']) {
    await t.request('POST', '/api/resource/crm.Customer', { body: { customer_name: name } });
  }
});
afterAll(() => t?.close());

describe('GET /api/resource/:doctype/export.csv', () => {
  it('sends no count past its first page when its filters test a flagged field', async () => {
    const res = await t.request(
      'GET',
      exportPath('crm.Customer', {
        filters: JSON.stringify([
          ['customer_name', 'like', 'Bulk%'],
          ['email', '!=', 'nobody@example.com'],
        ]),
        fields: JSON.stringify(['customer_name']),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBeNull();
    expect(await lines(res)).toHaveLength(BULK + 1);
  });

  it('streams every matching row past one page, in the sort asked, with the fields asked as columns', async () => {
    const res = await t.request(
      'GET',
      exportPath('crm.Customer', {
        filters: JSON.stringify([['customer_name', 'like', 'Bulk%']]),
        fields: JSON.stringify(['customer_name', 'email']),
        order_by: 'customer_name desc',
        limit_page_length: '20',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Customer.csv"');
    expect(res.headers.get('x-total-count')).toBe(String(BULK));
    const rows = await lines(res);
    expect(rows[0]).toBe('ID,Customer Name,Email');
    expect(rows).toHaveLength(BULK + 1);
    expect(rows[1]).toMatch(/^CUST-\d{5},Bulk 1050,bulk1050@example\.com$/);
    expect(rows.at(-1)).toMatch(/^CUST-\d{5},Bulk 0001,bulk1@example\.com$/);
    // Every record once: no page repeated or skipped.
    expect(new Set(rows.slice(1).map((r) => r.split(',')[0])).size).toBe(BULK);
  });

  it('in the default order pages by cursor: every record once, in the order of the list API', async () => {
    const filters = JSON.stringify([['customer_name', 'like', 'Bulk%']]);
    const res = await t.request('GET', exportPath('crm.Customer', { filters }));
    expect(res.status).toBe(200);
    const ids = (await lines(res)).slice(1).map((r) => r.split(',')[0]);
    expect(ids).toHaveLength(BULK);
    expect(new Set(ids).size).toBe(BULK);
    // The rows share one `modified` (stored in one statement): ties are broken by name across pages.
    const listed: string[] = [];
    for (let start = 0; start < BULK; start += 500) {
      const page = await t.request(
        'GET',
        `/api/resource/crm.Customer?${new URLSearchParams({ filters, limit_start: String(start), limit_page_length: '500' })}`,
      );
      listed.push(...((await page.json()) as { data: { name: string }[] }).data.map((r) => r.name));
    }
    expect(ids).toEqual(listed);
  });

  it('applies the filters of the list: equality on a select field', async () => {
    const res = await t.request(
      'GET',
      exportPath('crm.Customer', {
        filters: JSON.stringify({ status: 'Inactive' }),
        fields: JSON.stringify(['customer_name', 'status']),
      }),
    );
    const rows = await lines(res);
    expect(rows[0]).toBe('ID,Customer Name,Status');
    expect(rows.slice(1)).toHaveLength(BULK / 3);
    for (const row of rows.slice(1)) expect(row).toMatch(/,Bulk \d{4},Inactive$/);
  });

  it('exports pii fields masked to a reader without read_pii, and refuses a filter on them', async () => {
    const res = await t.request(
      'GET',
      exportPath('crm.Customer', {
        filters: JSON.stringify([['customer_name', '=', 'Bulk 0007']]),
        fields: JSON.stringify(['customer_name', 'email']),
      }),
      as(sales),
    );
    expect(res.status).toBe(200);
    const rows = await lines(res);
    expect(rows).toEqual(['ID,Customer Name,Email', expect.stringMatching(`,Bulk 0007,${PII_MASK}$`)]);
    expect(rows.join('\n')).not.toContain('bulk7@example.com');

    const probing = await t.request(
      'GET',
      exportPath('crm.Customer', { filters: JSON.stringify([['email', 'like', 'bulk7%']]) }),
      as(sales),
    );
    expect(probing.status).toBe(403);
    expect(await probing.text()).not.toContain('bulk7');
  });

  it('answers 403 forbidden, as JSON, to a user who may not read the DocType', async () => {
    const res = await t.request('GET', exportPath('crm.Customer'), as(stock));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: { code: 'forbidden', message: 'You may not read crm.Customer.' },
    });
  });

  it('answers 400 for a filter on a field the DocType lacks, and 404 for an unknown DocType', async () => {
    const bad = await t.request(
      'GET',
      exportPath('crm.Customer', { filters: JSON.stringify([['nope', '=', 1]]) }),
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_filters' } });
    expect((await t.request('GET', exportPath('crm.Nothing'))).status).toBe(404);
  });

  it('neutralises cells a spreadsheet would run as a formula, and quotes commas and quotes', async () => {
    const res = await t.request(
      'GET',
      exportPath('crm.Customer', {
        fields: JSON.stringify(['customer_name']),
        order_by: 'creation desc',
      }),
    );
    const rows = (await lines(res)).slice(1, 6).map((r) => r.slice(r.indexOf(',') + 1));
    expect(rows.sort()).toEqual(
      [`"'=HYPERLINK(""http://evil.test"")"`, "'+1 555", "'-2", "'@SUM(A1)", '"Plain, ""quoted"""'].sort(),
    );
  });
});
