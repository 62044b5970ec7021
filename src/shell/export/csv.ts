/**
 * The list's CSV export, free of React: the server writes the file (docs/http-api.md#csv-export) with the
 * list's own filters, sort and columns, and streams it; the Desk reads the stream, tells the rows received
 * as they arrive, and keeps the bytes until they are saved. The CSV rules (RFC 4180, no cell a spreadsheet
 * would run as a formula) are the protocol's, the same the server writes with.
 */
import type { CrudFilter, CrudSort } from '@refinedev/core';
import { toApiFilters, toOrderBy } from '../../sdk/data/query-params';
import { httpErrorFrom } from '../../sdk/http';

export { csvCell, csvRow } from '../../protocol/csv';

/** What the list shows, and so what its export holds. */
export interface ExportQuery {
  filters: readonly CrudFilter[];
  sort?: CrudSort;
  /** The columns after `ID`, in their order. */
  fields: readonly string[];
}

/** The URL of the export of `docType` as the list with `query` shows it. */
export function exportUrl(gatewayUrl: string, docType: string, query: ExportQuery): string {
  const params = new URLSearchParams();
  const filters = toApiFilters(query.filters);
  if (filters.length > 0) params.set('filters', JSON.stringify(filters));
  if (query.fields.length > 0) params.set('fields', JSON.stringify(query.fields));
  const orderBy = toOrderBy(query.sort ? [query.sort] : []);
  if (orderBy) params.set('order_by', orderBy);
  const search = params.toString();
  return `${gatewayUrl}/api/resource/${encodeURIComponent(docType)}/export.csv${search ? `?${search}` : ''}`;
}

/**
 * Counts the records in CSV text fed to it piece by piece: a line end outside quotes ends one (RFC 4180: a
 * quoted field may hold line breaks; a doubled quote inside one toggles twice and so changes nothing).
 */
export class CsvRecordCounter {
  #quoted = false;
  /** Line ends seen outside quotes so far (the heading line included). */
  lines = 0;

  /** Takes the next piece of the text. */
  feed(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 34) this.#quoted = !this.#quoted;
      else if (ch === 10 && !this.#quoted) this.lines++;
    }
  }
}

/** What {@link fetchExport} needs. */
export interface FetchExportOptions {
  url: string;
  signal: AbortSignal;
  /** Told as bytes arrive: the records received, and their number when the server told it. */
  onProgress?(done: number, total: number | undefined): void;
  /** Default the global `fetch`. */
  fetch?: typeof globalThis.fetch;
}

/**
 * Fetches the export with the session and reads its stream to the end; resolves with its bytes, ready for a
 * `Blob`. A refusal is the server's error ({@link httpErrorFrom}); a stream cut short or aborted rejects.
 */
export async function fetchExport(options: FetchExportOptions): Promise<Uint8Array<ArrayBuffer>[]> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const response = await doFetch(options.url, {
    credentials: 'include',
    headers: { Accept: 'text/csv' },
    signal: options.signal,
  });
  if (!response.ok) throw await httpErrorFrom(response);
  const told = Number(response.headers.get('x-total-count') ?? Number.NaN);
  const total = Number.isFinite(told) ? told : undefined;
  const parts: Uint8Array<ArrayBuffer>[] = [];
  const counter = new CsvRecordCounter();
  const decoder = new TextDecoder();
  if (!response.body) return parts;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // A response body's chunks are never on shared memory: each can be a part of a `Blob`.
    parts.push(value as Uint8Array<ArrayBuffer>);
    counter.feed(decoder.decode(value, { stream: true }));
    options.onProgress?.(Math.max(0, counter.lines - 1), total);
  }
  return parts;
}
