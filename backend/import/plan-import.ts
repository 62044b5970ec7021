/**
 * From a request to a runnable import: the file parsed, the mapping resolved and the import's stored job,
 * opened on first use and checked on every resume (same user, DocType, file and mapping).
 */

import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { Principal } from '../http/env';
import { PlatformError } from '../http/errors';
import type { RecordAccess } from '../permissions/record-access';
import { CsvError, type CsvTable, parseCsv } from './csv';
import type { ImportStore } from './import-store';
import { type ColumnMapping, resolveMapping } from './mapping';
import type { ImportPlan } from './run-import';

/** 404 `not_found` for an import that does not exist, or is not the caller's. */
export function noSuchImport(): PlatformError {
  return new PlatformError('not_found', 'No such import.', { status: 404 });
}

/** The parsed file, or 400 `invalid_csv` saying why it cannot be read. */
export function csvTable(csv: string): CsvTable {
  try {
    return parseCsv(csv);
  } catch (error) {
    if (error instanceof CsvError) throw new PlatformError('invalid_csv', error.message, { status: 400 });
    throw error;
  }
}

/** SHA-256 (hex) of what identifies an import's input: a resume must send the same file and mapping. */
async function fingerprint(doctype: string, csv: string, mapping: ColumnMapping[]): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify([doctype, csv, mapping]));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** What {@link planImport} starts from. */
export interface ImportRequest {
  doctype: DocTypeDefinition;
  access: RecordAccess;
  principal: Principal | undefined;
  csv: string;
  /** Heading (lower case) → field name or null; headings not named keep the default. */
  mapping: Record<string, string | null>;
  importId: string;
}

/**
 * Opens (or finds) the import and returns its plan. 404 `not_found` when the id is another user's or another
 * DocType's import; 409 `import_mismatch` when it was started with another file or mapping.
 */
export async function planImport(imports: ImportStore, request: ImportRequest): Promise<ImportPlan> {
  const { doctype, access, principal } = request;
  const table = csvTable(request.csv);
  const mapping = resolveMapping(doctype, table.header, request.mapping);
  const owner = principal?.user ?? '';
  const digest = await fingerprint(doctype.name, request.csv, mapping);
  const job = await imports.open({
    id: request.importId,
    doctype: doctype.name,
    owner,
    fingerprint: digest,
    total: table.rows.length,
  });
  if (job.owner !== owner || job.doctype !== doctype.name) throw noSuchImport();
  if (job.fingerprint !== digest) {
    throw new PlatformError('import_mismatch', 'This import was started with another file or mapping.', {
      status: 409,
    });
  }
  return { job, doctype, table, mapping, access, principal };
}
