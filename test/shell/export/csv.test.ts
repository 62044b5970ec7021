/**
 * The CSV export's text and its download: RFC 4180 quoting, no cell a spreadsheet would run as a formula,
 * the list's query in the export's URL, the records counted as the stream arrives (line breaks inside
 * quotes included), and a refusal read as the server's error.
 */
import { describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../../src/sdk/http';
import { CsvRecordCounter, csvCell, csvRow, exportUrl, fetchExport } from '../../../src/shell/export/csv';

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

describe('exportUrl', () => {
  it("carries the list's filters, sort and columns in the data API's parameters", () => {
    const url = new URL(
      exportUrl('http://desk.test', 'support.Ticket', {
        filters: [
          { field: 'status', operator: 'eq', value: 'Open' },
          { field: 'subject', operator: 'contains', value: 'fire' },
        ],
        sort: { field: 'subject', order: 'desc' },
        fields: ['subject', 'status'],
      }),
    );
    expect(url.pathname).toBe('/api/resource/support.Ticket/export.csv');
    expect(JSON.parse(url.searchParams.get('filters')!)).toEqual([
      ['status', '=', 'Open'],
      ['subject', 'like', '%fire%'],
    ]);
    expect(url.searchParams.get('order_by')).toBe('subject desc');
    expect(JSON.parse(url.searchParams.get('fields')!)).toEqual(['subject', 'status']);
  });
});

describe('CsvRecordCounter', () => {
  it('counts line ends outside quotes, however the text is cut', () => {
    const text = 'ID,Note\r\nR-1,"two\r\nlines"\r\nR-2,"say ""hi"""\r\nR-3,plain\r\n';
    for (const size of [1, 3, 7, text.length]) {
      const counter = new CsvRecordCounter();
      for (let i = 0; i < text.length; i += size) counter.feed(text.slice(i, i + size));
      expect(counter.lines).toBe(4);
    }
  });
});

describe('fetchExport', () => {
  const chunks = ['ID,Name\r\nR-1,A\r\n', 'R-2,B\r\nR-3,C\r\n', 'R-4,"D\r\nE"\r\n'];
  const streamed = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });

  it('reads the stream to the end with the session, telling the records received as they arrive', async () => {
    const fetch = vi.fn(
      async (_url: string | URL | Request, _init?: RequestInit) =>
        new Response(streamed(), {
          headers: { 'content-type': 'text/csv; charset=utf-8', 'x-total-count': '4' },
        }),
    );
    const progress: Array<[number, number | undefined]> = [];
    const parts = await fetchExport({
      url: 'http://desk.test/api/resource/x.Y/export.csv',
      signal: new AbortController().signal,
      fetch,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(fetch.mock.calls[0]![1]).toMatchObject({ credentials: 'include' });
    expect(progress).toEqual([
      [1, 4],
      [3, 4],
      [4, 4],
    ]);
    expect(await new Blob(parts).text()).toBe(chunks.join(''));
  });

  it("rejects with the server's error when the export is refused", async () => {
    const fetch = vi.fn(async () =>
      Response.json({ error: { code: 'forbidden', message: 'You may not read x.Y.' } }, { status: 403 }),
    );
    const failed = fetchExport({
      url: 'http://desk.test/e.csv',
      signal: new AbortController().signal,
      fetch,
    });
    await expect(failed).rejects.toBeInstanceOf(HttpError);
    await expect(failed).rejects.toMatchObject({ code: 'forbidden', status: 403 });
  });
});
