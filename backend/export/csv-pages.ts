import { CSV_CONTENT_TYPE, csvRow } from '../../src/protocol/csv';

/** One exported row: a value per field, as the columns name them. */
export type CsvSourceRow = Readonly<Record<string, unknown>>;

/** One page of the rows to export, read from `start`; fewer than asked (or none) ends the export. */
export type ReadPage = (start: number, pageLength: number) => Promise<readonly CsvSourceRow[]>;

/** A column of the export: its heading and the field whose value it holds. */
export interface CsvColumn {
  heading: string;
  field: string;
}

/** What {@link csvPages} needs. */
export interface CsvPagesOptions {
  columns: readonly CsvColumn[];
  /** The first page, already read (so a refusal is answered before any byte is sent). */
  first: readonly CsvSourceRow[];
  pageLength: number;
  readPage: ReadPage;
  /** Told when a page after the first cannot be read; the stream then ends in an error. */
  onError?(error: unknown): void;
}

const encoder = new TextEncoder();

function pageText(columns: readonly CsvColumn[], records: readonly CsvSourceRow[]): string {
  let text = '';
  for (const record of records) text += csvRow(columns.map((c) => record[c.field]));
  return text;
}

/**
 * The export as a byte stream: the heading line with the first page, then one chunk per page, each page read
 * only when the reader has taken the previous one (`pull`, high-water mark one chunk). A slow client thus
 * holds the reading back instead of the rows piling up in memory: the process holds at most a page or two
 * of records, whatever the number of rows (docs/http-api.md#csv-export).
 */
export function csvPages(options: CsvPagesOptions): ReadableStream<Uint8Array> {
  const { columns, pageLength } = options;
  let start = options.first.length;
  let ended = options.first.length < pageLength;
  let first: string | undefined = csvRow(columns.map((c) => c.heading)) + pageText(columns, options.first);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (first !== undefined) {
          controller.enqueue(encoder.encode(first));
          first = undefined;
          if (ended) controller.close();
          return;
        }
        try {
          const records = await options.readPage(start, pageLength);
          start += records.length;
          ended = records.length < pageLength;
          if (records.length > 0) controller.enqueue(encoder.encode(pageText(columns, records)));
          if (ended) controller.close();
        } catch (error) {
          options.onError?.(error);
          controller.error(error);
        }
      },
    },
    { highWaterMark: 1 },
  );
}

/** The headers of an export saved as `<filename>` (RFC 6266, ASCII only). */
export function csvHeaders(filename: string, total?: number): Record<string, string> {
  return {
    'Content-Type': CSV_CONTENT_TYPE,
    'Content-Disposition': `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...(total !== undefined ? { 'X-Total-Count': String(total) } : {}),
  };
}
