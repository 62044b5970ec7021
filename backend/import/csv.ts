/**
 * The CSV an import reads (RFC 4180): records separated by CRLF (a lone LF or CR is accepted too), fields
 * by commas, a field in double quotes may hold commas, line breaks and doubled quotes. The first record is
 * the header. A UTF-8 byte order mark before it is dropped; blank lines are skipped.
 */

/** One data record of the file, with the number a spreadsheet shows for it (the header is row 1). */
export interface CsvRow {
  row: number;
  cells: string[];
}

/** A parsed file: its header and its data records. */
export interface CsvTable {
  header: string[];
  rows: CsvRow[];
}

/** Why a text is not a usable CSV file (the caller answers 400 `invalid_csv`). */
export class CsvError extends Error {
  override name = 'CsvError';
}

/** Splits `text` into records of fields, with the record number of each (1-based, blank lines counted). */
function records(text: string): CsvRow[] {
  const out: CsvRow[] = [];
  let field = '';
  let cells: string[] = [];
  let quoted = false;
  let wasQuoted = false;
  let row = 1;
  const endRecord = () => {
    cells.push(field);
    if (cells.length > 1 || cells[0] !== '' || wasQuoted) out.push({ row, cells });
    row++;
    cells = [];
    field = '';
    wasQuoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"' && field === '') {
      quoted = true;
      wasQuoted = true;
    } else if (c === ',') {
      cells.push(field);
      field = '';
    } else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else field += c;
  }
  if (quoted) throw new CsvError('A quoted field is not closed.');
  if (field !== '' || cells.length > 0 || wasQuoted) endRecord();
  return out;
}

/**
 * Parses an import file. Throws {@link CsvError} when it has no header, a header cell is empty or repeated,
 * or a quote is left open. Records with another number of fields than the header are kept as they are: the
 * row check reports them (`column_count`), so one bad line does not hide the others.
 */
export function parseCsv(text: string): CsvTable {
  const [first, ...rows] = records(text.replace(/^\uFEFF/, ''));
  if (!first) throw new CsvError('The file is empty: the first row must name the columns.');
  const header = first.cells.map((h) => h.trim());
  if (header.some((h) => h === '')) throw new CsvError('The first row must name every column.');
  const seen = new Set<string>();
  for (const h of header) {
    const key = h.toLowerCase();
    if (seen.has(key)) throw new CsvError(`The column "${h.slice(0, 64)}" appears twice.`);
    seen.add(key);
  }
  return { header, rows };
}
