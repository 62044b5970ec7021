import { type Context, Hono } from 'hono';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { AppContext } from '../context';
import { decodeListCursor, type ListCursor } from '../data/list-cursor';
import { MAX_PAGE_LENGTH, parseListQuery } from '../data/list-query';
import { notifyRead, revealedFields } from '../data/record-observer';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { clientAddress } from '../middleware/client-address';
import { recordAccess } from '../permissions/record-access';
import { rolesOf } from '../permissions/routes';
import { type CsvColumn, csvHeaders, csvPages } from './csv-pages';

/** What the export uses of the process: its records, DocTypes, rules, observers and log. */
export type ExportRouteDeps = Pick<
  AppContext,
  'records' | 'doctypes' | 'permissions' | 'log' | 'config' | 'recordObservers'
>;

/** Headings of the standard columns; a DocType's fields are headed by their labels. */
const STANDARD_HEADINGS: Record<string, string> = {
  name: 'ID',
  creation: 'Created',
  modified: 'Modified',
  modified_by: 'Last changed by',
};

/** The columns of the export: `ID` first, then the asked fields in their order (all fields when none). */
function columnsOf(doctype: DocTypeDefinition, fields: readonly string[] | undefined): CsvColumn[] {
  const chosen = (fields ?? doctype.fields.map((f) => f.name)).filter((f) => f !== 'name');
  return ['name', ...chosen].map((field) => ({
    field,
    heading: STANDARD_HEADINGS[field] ?? doctype.fields.find((f) => f.name === field)?.label ?? field,
  }));
}

/**
 * `GET /api/resource/:doctype/export.csv` (docs/http-api.md#csv-export): every record the list with the same
 * `filters` and `order_by` matches, as CSV with an `ID` column and the `fields` asked for (all fields when
 * none), streamed. The same checks as the list: 403 `forbidden` without `read`, 400 for a bad parameter or
 * a filter on a masked field, all before the first byte; a reader without `read_pii` gets `pii` fields
 * masked. Rows are read in pages of {@link MAX_PAGE_LENGTH}, each only once the client took the previous
 * one, so the memory an export holds does not grow with its size. Mounted before the data routes, whose
 * `/:doctype/:name` would otherwise take `export.csv` for a record's name (names are `<prefix>-<counter>`).
 */
export function exportRoutes(ctx: ExportRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const observers = ctx.recordObservers ?? [];
  const trustedProxies = new Set(ctx.config.server.trusted_proxies);

  routes.get('/api/resource/:doctype/export.csv', async (c: Context<AppEnv>) => {
    const doctype = ctx.doctypes.get(c.req.param('doctype') ?? '');
    if (!doctype)
      throw new PlatformError('unknown_doctype', 'No such DocType is installed.', { status: 404 });
    const access = await recordAccess(ctx.permissions, rolesOf(c.get('principal')), doctype);
    access.require('read');
    const { limit_start: _start, limit_page_length: _length, ...params } = c.req.query();
    // The paging is the export's own; the fields asked are its columns.
    const parsed = parseListQuery(doctype, params);
    access.requireQueryable([...parsed.filters, ...parsed.orderBy].map((f) => f.field));
    const columns = columnsOf(doctype, parsed.fields);
    const query = { ...parsed, fields: columns.map((col) => col.field), pageLength: MAX_PAGE_LENGTH };
    // What the audit log records as revealed: the flagged columns in clear, and the flagged fields the
    // filters test (their values are known for every row exported, whatever the columns).
    const revealed = revealedFields(
      doctype,
      access.masked,
      columns.map((col) => col.field),
      parsed.filters.map((f) => f.field),
    );
    const principal = c.get('principal');
    // In the default order each page starts after the previous one's last record (its `next_cursor`), so
    // an export of the whole table walks the order's index once instead of skipping ever more rows by
    // offset; other orders page by offset.
    let after: ListCursor | undefined;
    const readPage = async (start: number, pageLength: number) => {
      const page = await ctx.records.list(
        doctype,
        after ? { ...query, start: 0, pageLength, after } : { ...query, start, pageLength },
        { masked: access.masked },
      );
      after = page.next_cursor ? decodeListCursor(page.next_cursor) : undefined;
      if (observers.length > 0 && page.data.length > 0) {
        await notifyRead(observers, {
          doctype,
          names: page.data.map((r) => r.name),
          route: 'list',
          principal,
          revealed,
          clientAddress: clientAddress(c, trustedProxies),
        });
      }
      return { ...page, data: access.maskAll(page.data) };
    };
    const first = await readPage(0, MAX_PAGE_LENGTH);
    const body = csvPages({
      columns,
      first: first.data,
      pageLength: MAX_PAGE_LENGTH,
      readPage: async (start, pageLength) => (await readPage(start, pageLength)).data,
      onError: (error) => ctx.log(`export: ${doctype.name} stopped (${(error as Error).name})`),
    });
    // A count past the first page, when the filters test a flagged field in clear, would tell how many
    // records hold the values tested before the rows that show them are read and audited (a client may stop
    // reading after the headers): it is sent only when the first page holds them all (as the list's total).
    const testsRevealed =
      revealedFields(
        doctype,
        access.masked,
        [],
        parsed.filters.map((f) => f.field),
      ).length > 0;
    const counted = !first.total_is_lower_bound && (!testsRevealed || first.total <= first.data.length);
    const total = counted ? first.total : undefined;
    return new Response(body, { status: 200, headers: csvHeaders(`${doctype.label}.csv`, total) });
  });

  return routes;
}
