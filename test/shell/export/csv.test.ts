/**
 * The CSV export's text and paging: RFC 4180 quoting, no cell a spreadsheet would run as a formula, every
 * page fetched in turn with its progress told, and an abort that stops it.
 */
import { describe, expect, it, vi } from 'vitest';
import { csvCell, csvRow, exportCsv } from '../../../src/shell/export/csv';

describe('csv text', () => {
  it('quotes a field holding a comma, a quote or a line break, and doubles its quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(true)).toBe('Yes');
    expect(csvCell(12.5)).toBe('12.5');
    expect(csvRow(['a', 'b,c', null])).toBe('a,"b,c",\r\n');
  });

  it('writes no cell a spreadsheet would run as a formula', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+31 20 123')).toBe("'+31 20 123");
    expect(csvCell('-2')).toBe("'-2");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
  });
});

describe('exportCsv', () => {
  const columns = [
    { heading: 'ID', value: (r: Record<string, unknown>) => r.name },
    { heading: 'Name', value: (r: Record<string, unknown>) => r.title },
  ];
  const records = Array.from({ length: 5 }, (_, i) => ({ name: `R-${i + 1}`, title: `Title ${i + 1}` }));
  const pages = (page: number, size: number) => ({
    data: records.slice((page - 1) * size, page * size),
    total: records.length,
  });

  it('fetches every page in turn and tells the progress after each', async () => {
    const fetchPage = vi.fn(async (page: number, size: number) => pages(page, size));
    const progress: Array<[number, number]> = [];
    const parts = await exportCsv({
      columns,
      fetchPage,
      pageSize: 2,
      signal: new AbortController().signal,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(fetchPage.mock.calls.map((c) => c[0])).toEqual([1, 2, 3]);
    expect(progress).toEqual([
      [2, 5],
      [4, 5],
      [5, 5],
    ]);
    expect(parts.join('').split('\r\n')).toEqual([
      'ID,Name',
      'R-1,Title 1',
      'R-2,Title 2',
      'R-3,Title 3',
      'R-4,Title 4',
      'R-5,Title 5',
      '',
    ]);
  });

  it('stops when aborted between pages', async () => {
    const controller = new AbortController();
    const fetchPage = vi.fn(async (page: number, size: number) => {
      controller.abort();
      return pages(page, size);
    });
    await expect(exportCsv({ columns, fetchPage, pageSize: 2, signal: controller.signal })).rejects.toThrow();
    expect(fetchPage).toHaveBeenCalledTimes(1);
  });
});
