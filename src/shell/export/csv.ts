/**
 * The list's CSV export, free of React: RFC 4180 text (comma-separated, CRLF line ends, a field quoted when
 * it holds a comma, a quote or a line break, quotes doubled), with a cell that a spreadsheet would run as a
 * formula (starting with `=`, `+`, `-`, `@`, tab or CR) prefixed by `'`. Records come page by page from the
 * data API, with the list's own filters and sort, so neither the server nor the page holds more than one
 * page of records at a time; the text is kept as one small part per page until it is saved.
 */

/** Records per request: the data API's largest page (docs/http-api.md#list-parameters). */
export const EXPORT_PAGE_SIZE = 500;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field. */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'boolean' ? (value ? 'Yes' : 'No') : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV line, CRLF-terminated. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** A column of the export: its heading and how a record gives its value. */
export interface ExportColumn {
  heading: string;
  value(record: Record<string, unknown>): unknown;
}

/** What an export needs. */
export interface ExportOptions {
  columns: readonly ExportColumn[];
  /** One page of the list (1-based), with the list's filters and sort, and the total it matches. */
  fetchPage(
    page: number,
    pageSize: number,
    signal: AbortSignal,
  ): Promise<{ data: Record<string, unknown>[]; total: number }>;
  /** Told after each page: how many records are written, of how many. */
  onProgress?(done: number, total: number): void;
  signal: AbortSignal;
  pageSize?: number;
}

/**
 * Pages through the list and returns the CSV as parts (the heading line, then one part per page), ready for
 * a `Blob`. Stops at the first short page or once `total` records are written; an abort rejects.
 */
export async function exportCsv(options: ExportOptions): Promise<string[]> {
  const pageSize = options.pageSize ?? EXPORT_PAGE_SIZE;
  const parts = [csvRow(options.columns.map((c) => c.heading))];
  let done = 0;
  for (let page = 1; ; page++) {
    options.signal.throwIfAborted();
    const { data, total } = await options.fetchPage(page, pageSize, options.signal);
    parts.push(data.map((record) => csvRow(options.columns.map((c) => c.value(record)))).join(''));
    done += data.length;
    options.onProgress?.(done, Math.max(total, done));
    if (data.length < pageSize || done >= total) return parts;
  }
}
