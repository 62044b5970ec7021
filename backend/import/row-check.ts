/**
 * Checks each row of an import with the data API's own rules (backend/data): the model's validation
 * (required, types, formats, select options), masked values refused, `unique` fields (against the stored
 * records and the rows above in the same file) and Link fields resolved where their DocType lives. A row
 * fails with one problem per field at fault; nothing is written here.
 */

import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { RowProblem } from '../../src/protocol/import';
import { checkUnique, type IntegrityDeps, linkResolver } from '../data/integrity';
import { validateDocument } from '../data/validate';
import type { Principal } from '../http/env';
import { PlatformError } from '../http/errors';
import type { RecordAccess } from '../permissions/record-access';
import { cellValue } from './cell-values';
import type { CsvRow } from './csv';
import type { ColumnMapping } from './mapping';

export type { RowProblem };

/** The outcome of checking one row. */
export type RowOutcome =
  | { ok: true; row: number; data: Record<string, unknown> }
  | { ok: false; row: number; problems: RowProblem[] };

/** What a checker reads. */
export interface RowCheckDeps {
  integrity: IntegrityDeps;
  doctype: DocTypeDefinition;
  mapping: readonly ColumnMapping[];
  access: RecordAccess;
  principal: Principal | undefined;
  /**
   * `unique` fields whose values are not looked for among the stored records (only among the file's rows):
   * a preview's, for the personal data its caller gets masked. A preview writes nothing, so checking those
   * would tell the caller, row after row and at no cost, which values other records hold
   * (docs/security.md#what-the-blind-index-leaks); the import's run checks them.
   */
  uncheckedStored?: readonly string[];
}

/** The field errors of a refusal the data API would answer with; anything else is not the row's fault. */
function problemsOf(row: number, error: unknown): RowProblem[] {
  if (!(error instanceof PlatformError) || !error.fields?.length) throw error;
  return error.fields.map((f) => ({ row, field: f.field, code: f.code, message: f.message }));
}

/**
 * Checks rows one after another, in file order: it remembers the `unique` values of the rows it passed, so
 * the second of two rows sharing one fails `duplicate` as the data API would fail its create. Link lookups
 * are remembered for the checker's life (one preview, one import run).
 */
export class RowChecker {
  readonly #deps: RowCheckDeps;
  readonly #links = new Map<string, Promise<boolean | undefined>>();
  readonly #uniqueSeen = new Map<string, Set<unknown>>();
  readonly #resolver;

  constructor(deps: RowCheckDeps) {
    this.#deps = deps;
    this.#resolver = linkResolver(deps.integrity);
  }

  /**
   * Checks one row. Throws 503 `service_unavailable` when a linked DocType's owner cannot be asked now (no
   * row is at fault then).
   */
  async check(csvRow: CsvRow): Promise<RowOutcome> {
    const { doctype, mapping } = this.#deps;
    const { row, cells } = csvRow;
    if (cells.length !== mapping.length) {
      const message = `The row has ${cells.length} values, the header ${mapping.length} columns.`;
      return { ok: false, row, problems: [{ row, field: '(row)', code: 'column_count', message }] };
    }
    const input: Record<string, unknown> = {};
    mapping.forEach(({ field }, i) => {
      const definition = field === null ? undefined : doctype.fields.find((f) => f.name === field);
      const value = definition ? cellValue(definition, cells[i]!) : undefined;
      if (definition && value !== undefined) input[definition.name] = value;
    });
    let data: Record<string, unknown>;
    try {
      this.#deps.access.refuseMaskedWrite(input);
      data = validateDocument(doctype, input);
    } catch (error) {
      return { ok: false, row, problems: problemsOf(row, error) };
    }
    const problems = [...this.#duplicatesInFile(row, data), ...(await this.#brokenLinks(row, data))];
    if (problems.length === 0) {
      try {
        await checkUnique(this.#deps.integrity, doctype, this.#storedChecked(data));
      } catch (error) {
        problems.push(...problemsOf(row, error));
      }
    }
    if (problems.length > 0) return { ok: false, row, problems };
    this.#rememberUnique(data);
    return { ok: true, row, data };
  }

  /** `data` without the fields whose stored duplicates this checker does not look for. */
  #storedChecked(data: Record<string, unknown>): Record<string, unknown> {
    const unchecked = this.#deps.uncheckedStored ?? [];
    if (unchecked.length === 0) return data;
    return Object.fromEntries(Object.entries(data).filter(([field]) => !unchecked.includes(field)));
  }

  #duplicatesInFile(row: number, data: Record<string, unknown>): RowProblem[] {
    return this.#deps.doctype.fields
      .filter(
        (f) => f.unique && data[f.name] !== undefined && this.#uniqueSeen.get(f.name)?.has(data[f.name]),
      )
      .map((f) => ({
        row,
        field: f.name,
        code: 'duplicate',
        message: `${f.label} is already used by a row above.`,
      }));
  }

  #rememberUnique(data: Record<string, unknown>): void {
    for (const f of this.#deps.doctype.fields) {
      if (!f.unique || data[f.name] === undefined) continue;
      const seen = this.#uniqueSeen.get(f.name) ?? new Set<unknown>();
      seen.add(data[f.name]);
      this.#uniqueSeen.set(f.name, seen);
    }
  }

  async #brokenLinks(row: number, data: Record<string, unknown>): Promise<RowProblem[]> {
    const problems: RowProblem[] = [];
    for (const field of this.#deps.doctype.fields) {
      const value = data[field.name];
      if (!field.link || typeof value !== 'string' || value === '') continue;
      const key = `${field.link}\u0000${value}`;
      let lookup = this.#links.get(key);
      if (!lookup) {
        lookup = this.#resolver.exists(field.link, value, this.#deps.principal);
        this.#links.set(key, lookup);
      }
      const exists = await lookup;
      if (exists === undefined) {
        this.#links.delete(key); // asked again next time: the owner may be back

        throw new PlatformError(
          'service_unavailable',
          'A linked record could not be checked now. Try again.',
          {
            status: 503,
          },
        );
      }
      if (!exists) {
        problems.push({
          row,
          field: field.name,
          code: 'link_not_found',
          message: `${field.label}: no such record.`,
        });
      }
    }
    return problems;
  }
}
