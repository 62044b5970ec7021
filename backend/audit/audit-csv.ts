/**
 * The audit log as a CSV file (`GET /api/audit/export.csv`, docs/operators.md#the-audit-log): the entries a
 * query matches, every one of them, with their hashes, so a copy handed to an auditor can be checked against
 * a head recorded earlier. Streamed a page at a time, as the list export is (backend/export).
 */
import type { AuditEntry } from '../../src/protocol/audit';
import { unguardedCell } from '../../src/protocol/csv';
import { type CsvColumn, csvHeaders, csvPages } from '../export/csv-pages';
import { parseCsv } from '../import/csv';

/** The columns, named as the API names the entry's fields; a gateway's export starts with `service`. */
const FIELDS = [
  'seq',
  'at',
  'user',
  'via',
  'doctype',
  'record',
  'fields',
  'route',
  'client_address',
  'prev_hash',
  'hash',
] as const;

/** The next `pageLength` entries in the export's order; fewer (or none) ends it. */
export type NextEntries = (pageLength: number) => Promise<readonly AuditEntry[]>;

/** What {@link auditCsvResponse} writes. */
export interface AuditCsvOptions {
  next: NextEntries;
  /** Entries per page read. */
  pageLength: number;
  /** How many entries the query matched when the export began (`X-Total-Count`, for a progress bar). */
  total: number;
  /** Whether the entries name the service whose log holds them (a MACROSERVICE gateway's merged log). */
  service: boolean;
  /** Told when a page after the first cannot be read; the file then ends short, in an error. */
  onError?(error: unknown): void;
}

/** An entry as a row: its fields' names separated by spaces (a field's name holds none). */
function row(entry: AuditEntry): Record<string, unknown> {
  return { ...entry, fields: entry.fields.join(' ') };
}

/**
 * The export's response, `audit-log-<date>.csv`: the first page is read before it is made, so a refusal
 * (a service that will not answer) is an error response rather than a file cut short.
 */
export async function auditCsvResponse(options: AuditCsvOptions): Promise<Response> {
  const columns: CsvColumn[] = [...(options.service ? ['service'] : []), ...FIELDS].map((field) => ({
    heading: field,
    field,
  }));
  const first = (await options.next(options.pageLength)).map(row);
  const body = csvPages({
    columns,
    first,
    pageLength: options.pageLength,
    readPage: async (_start, pageLength) => (await options.next(pageLength)).map(row),
    onError: options.onError,
  });
  const today = new Date().toISOString().slice(0, 10);
  return new Response(body, { status: 200, headers: csvHeaders(`audit-log-${today}.csv`, options.total) });
}

/** Why a file is not an audit log export {@link entriesFromCsv} can read. */
export class AuditCsvError extends Error {
  override name = 'AuditCsvError';
}

/**
 * The entries of an export written by {@link auditCsvResponse}, read back as the API gives them (its
 * formula guard undone, an empty address as null), ordered by their chain (each service's on its own,
 * in a gateway's merged file) whatever order the file was written in, ready for `verifyChain`.
 */
export function entriesFromCsv(text: string): AuditEntry[] {
  const table = parseCsv(text);
  const merged = table.header[0] === 'service';
  const expected = [...(merged ? ['service'] : []), ...FIELDS];
  if (table.header.join(',') !== expected.join(',')) {
    throw new AuditCsvError(
      `not an audit log export: its first line must be ${expected.join(',')} (GET /api/audit/export.csv)`,
    );
  }
  const entries = table.rows.map(({ row, cells }) => {
    const cell = (name: string) => unguardedCell(cells[expected.indexOf(name)] ?? '');
    const seq = Number(cell('seq'));
    if (!Number.isSafeInteger(seq) || seq < 1) {
      throw new AuditCsvError(`row ${row}: seq must be a whole number from 1, not "${cell('seq')}"`);
    }
    const entry: AuditEntry = {
      seq,
      at: cell('at'),
      user: cell('user'),
      via: cell('via'),
      doctype: cell('doctype'),
      record: cell('record'),
      fields: cell('fields') === '' ? [] : cell('fields').split(' '),
      route: cell('route'),
      client_address: cell('client_address') === '' ? null : cell('client_address'),
      prev_hash: cell('prev_hash'),
      hash: cell('hash'),
    };
    return merged ? { ...entry, service: cell('service') } : entry;
  });
  return entries.sort((a, b) => (a.service ?? '').localeCompare(b.service ?? '') || a.seq - b.seq);
}
