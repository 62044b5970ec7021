/**
 * Which CSV column fills which field. By default a column whose heading is a field's label or name
 * (case-insensitive, surrounding spaces ignored) fills that field; any other column (the export's `ID`,
 * say) is left out. A client may send its own mapping, heading → field name or `null` to leave the column
 * out; headings it does not name keep the default.
 */

import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { ColumnMapping } from '../../src/protocol/import';
import { type FieldError, PlatformError } from '../http/errors';

export type { ColumnMapping };

/** The default field of a heading: the field whose label or name it is, case-insensitive. */
function defaultField(doctype: DocTypeDefinition, heading: string): string | null {
  const key = heading.trim().toLowerCase();
  const byLabel = doctype.fields.find((f) => f.label.toLowerCase() === key);
  const byName = doctype.fields.find((f) => f.name.toLowerCase() === key);
  return (byLabel ?? byName)?.name ?? null;
}

/** Reads a client's mapping: an object of heading → field name or null; anything else is 400. */
export function requestedMapping(value: unknown): Record<string, string | null> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new PlatformError('invalid_body', '"mapping" must be an object of column → field name.', {
      status: 400,
    });
  }
  const out: Record<string, string | null> = {};
  for (const [column, field] of Object.entries(value)) {
    if (field !== null && typeof field !== 'string') {
      throw new PlatformError('invalid_body', '"mapping" values must be field names or null.', {
        status: 400,
      });
    }
    out[column.trim().toLowerCase()] = field === '' ? null : field;
  }
  return out;
}

/**
 * The mapping of each heading: the requested field when the request names the heading, else the default.
 * 422 `invalid_mapping` when a requested field does not exist or two columns fill the same field.
 */
export function resolveMapping(
  doctype: DocTypeDefinition,
  header: readonly string[],
  requested: Record<string, string | null>,
): ColumnMapping[] {
  const mapping = header.map((column) => {
    const key = column.trim().toLowerCase();
    return { column, field: key in requested ? requested[key]! : defaultField(doctype, column) };
  });
  const problems: FieldError[] = [];
  const used = new Map<string, string>();
  for (const { column, field } of mapping) {
    if (field === null) continue;
    const known = doctype.fields.find((f) => f.name === field);
    if (!known) {
      problems.push({ field: column, code: 'unknown_field', message: `${doctype.label} has no such field.` });
      continue;
    }
    const other = used.get(field);
    if (other !== undefined) {
      problems.push({
        field: column,
        code: 'duplicate_mapping',
        message: `${known.label} is already filled from the column "${other}".`,
      });
    }
    used.set(field, column);
  }
  if (problems.length > 0) {
    throw new PlatformError('invalid_mapping', 'The column mapping is not usable.', {
      status: 422,
      fields: problems,
    });
  }
  return mapping;
}
