/**
 * The CSV text of a list's export (docs/http-api.md#csv-export), written the same way by the server's
 * streamed export and by anything else that turns records into CSV: RFC 4180 (comma-separated, CRLF line
 * ends, a field quoted when it holds a comma, a quote or a line break, quotes doubled), with a cell a
 * spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR) prefixed by `'`, and
 * booleans as `Yes` / `No`.
 */

/** The media type of an export (RFC 7111), UTF-8. */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field. */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'boolean' ? (value ? 'Yes' : 'No') : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A cell as it was before {@link csvCell} guarded it: the `'` written before a formula's first character
 * removed, so a file exported and read back holds the values it was written from.
 */
export function unguardedCell(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}

/** One CSV line, CRLF-terminated. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
