/**
 * The import's CSV reader (RFC 4180): quoting, line ends, the byte order mark, blank lines, and the row
 * numbers a spreadsheet shows; and the files it refuses, with why.
 */
import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv } from '../../../backend/import/csv';

describe('parseCsv', () => {
  it('reads quoted commas, doubled quotes and line breaks, with CRLF, LF or CR line ends', () => {
    const table = parseCsv('\uFEFFA,B\r\n"x, y","say ""hi"""\n"two\r\nlines",\r3,"",\r\n');
    expect(table.header).toEqual(['A', 'B']);
    expect(table.rows).toEqual([
      { row: 2, cells: ['x, y', 'say "hi"'] },
      { row: 3, cells: ['two\r\nlines', ''] },
      { row: 4, cells: ['3', '', ''] },
    ]);
  });

  it('skips blank lines but counts them in the row numbers, and keeps a last line without a line end', () => {
    const table = parseCsv('Name\r\n\r\nfirst\r\n\r\nsecond');
    expect(table.rows).toEqual([
      { row: 3, cells: ['first'] },
      { row: 5, cells: ['second'] },
    ]);
  });

  it('keeps a row holding one empty quoted value (it is not a blank line)', () => {
    expect(parseCsv('Name\r\n""\r\n').rows).toEqual([{ row: 2, cells: [''] }]);
  });

  it('refuses an empty file, an empty or repeated heading, and a quote left open', () => {
    expect(() => parseCsv('')).toThrow(CsvError);
    expect(() => parseCsv('\uFEFF')).toThrow(/first row must name the columns/);
    expect(() => parseCsv('A,,C\r\n1,2,3\r\n')).toThrow(/name every column/);
    expect(() => parseCsv('Name,name\r\n1,2\r\n')).toThrow(/appears twice/);
    expect(() => parseCsv('A\r\n"open\r\n')).toThrow(/not closed/);
  });
});
