/**
 * The export's byte stream: the heading and the first page at once, each later page read only when the
 * reader asks for more (so a client that stops reading stops the reading of the database), quoting and
 * formula neutralising as the protocol writes them, and a page that cannot be read ending the stream in an
 * error rather than in a file that looks complete.
 */
import { describe, expect, it, vi } from 'vitest';
import type { DocRecord } from '../../../backend/data/records';
import { csvPages } from '../../../backend/export/csv-pages';

const columns = [
  { heading: 'ID', field: 'name' },
  { heading: 'Title', field: 'title' },
];
const record = (i: number, title = `Title ${i}`): DocRecord => ({
  name: `R-${i}`,
  title,
  creation: '2026-01-01T00:00:00.000Z',
  modified: '2026-01-01T00:00:00.000Z',
});
const decoder = new TextDecoder();

describe('csvPages', () => {
  it('reads a page only when the reader asks for more, and ends at the first short page', async () => {
    const readPage = vi.fn(async (start: number) =>
      start === 2 ? [record(3), record(4)] : start === 4 ? [record(5)] : [],
    );
    const reader = csvPages({ columns, first: [record(1), record(2)], pageLength: 2, readPage }).getReader();
    expect(decoder.decode((await reader.read()).value)).toBe('ID,Title\r\nR-1,Title 1\r\nR-2,Title 2\r\n');
    // One chunk may wait ahead of the reader: the second page, never more.
    await new Promise((r) => setTimeout(r, 20));
    expect(readPage.mock.calls.map((c) => c[0])).toEqual([2]);
    expect(decoder.decode((await reader.read()).value)).toBe('R-3,Title 3\r\nR-4,Title 4\r\n');
    expect(decoder.decode((await reader.read()).value)).toBe('R-5,Title 5\r\n');
    expect((await reader.read()).done).toBe(true);
    expect(readPage.mock.calls).toEqual([
      [2, 2],
      [4, 2],
    ]);
  });

  it('quotes commas and quotes, and neutralises formula-looking values', async () => {
    const stream = csvPages({
      columns,
      first: [record(1, '=SUM(A1)'), record(2, 'a, "b"')],
      pageLength: 5,
      readPage: async () => [],
    });
    expect(await new Response(stream).text()).toBe(`ID,Title\r\nR-1,'=SUM(A1)\r\nR-2,"a, ""b"""\r\n`);
  });

  it('ends in an error, told, when a later page cannot be read', async () => {
    const onError = vi.fn();
    const stream = csvPages({
      columns,
      first: [record(1)],
      pageLength: 1,
      readPage: async () => {
        throw new Error('the database went away');
      },
      onError,
    });
    await expect(new Response(stream).text()).rejects.toThrow('the database went away');
    expect(onError).toHaveBeenCalledTimes(1);
  });
});
