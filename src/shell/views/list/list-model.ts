/**
 * The generic list's model, free of React: which fields are columns, the Refine filters a list state asks
 * for, and how a cell shows its value.
 */
import type { CrudFilter } from '@refinedev/core';
import { type FieldSchema, isFlagged } from '../../../protocol';
import { type DeskField, deskFields, formatDateTime, linkTarget } from '../../fields';
import type { LinkTitles } from '../../hooks/use-link-titles';
import { DEFAULT_PAGE_SIZE, type ListState } from '../../routing/route';

/** Page sizes offered to the user. */
export const PAGE_SIZES = [10, DEFAULT_PAGE_SIZE, 50] as const;

/** Field types a filter matches exactly (`eq`); every other type matches as a substring (`contains`). */
const EXACT_FILTER_TYPES = ['select', 'boolean', 'int', 'float', 'currency', 'link', 'date'];

/** The columns of a list: fields flagged `inList`, else the first four fields; the title field first. */
export function listColumns(schema: { fields: readonly FieldSchema[]; titleField: string }): DeskField[] {
  const fields = deskFields(schema);
  const flagged = fields.filter((f) => f.inList);
  const columns = flagged.length > 0 ? flagged : fields.slice(0, 4);
  const title = fields.find((f) => f.name === schema.titleField);
  return title && !columns.includes(title) ? [title, ...columns] : columns;
}

/**
 * The fields a list may show as columns: every field, but personal data (`pii` or `encrypted`) only for who
 * may read it (`read_pii`); others would see it masked.
 */
export function pickableColumns(
  schema: { fields: readonly FieldSchema[] },
  canReadPii: boolean,
): DeskField[] {
  return deskFields(schema).filter((f) => canReadPii || !isFlagged(f));
}

/**
 * The columns a list shows: the chosen ones in their order (names not among `pickable` are left out), else
 * the default {@link listColumns}.
 */
export function chosenColumns(
  schema: { fields: readonly FieldSchema[]; titleField: string },
  chosen: readonly string[] | undefined,
  pickable: readonly DeskField[],
): DeskField[] {
  const fields = (chosen ?? []).flatMap((name) => pickable.filter((f) => f.name === name));
  return fields.length > 0 ? fields : listColumns(schema);
}

/**
 * The fields a list asks the server for: its columns, plus what every row shows besides them (the record's
 * name, its title in the row's selection label, the last author's column). A field not shown is not asked
 * for, so personal data the list does not show is neither decrypted nor audited as revealed.
 */
export function shownFields(titleField: string, columns: readonly DeskField[]): string[] {
  return [...new Set(['name', titleField, ...columns.map((f) => f.name), 'modified', 'modified_by'])];
}

/**
 * The columns a list offers a filter for: every column but checks and the title (the search covers it), and
 * a column of personal data only for who may read it (`read_pii`): filtering by it tells its values.
 */
export function filterableColumns(
  columns: readonly DeskField[],
  titleField: string,
  canReadPii = true,
): DeskField[] {
  return columns.filter(
    (f) => f.type !== 'boolean' && f.name !== titleField && (canReadPii || !isFlagged(f)),
  );
}

/**
 * How the list's search box matches the title: a part of it (`contains`), the whole of it when the title is
 * personal data (stored encrypted, it is compared whole, docs/desk.md#filters), or not at all for a user who
 * may not read that personal data.
 */
export type TitleSearch = 'part' | 'whole' | 'none';

/** The {@link TitleSearch} of `schema`'s title for a user who may (or may not) read personal data. */
export function titleSearch(
  schema: { fields: readonly FieldSchema[]; titleField: string },
  canReadPii: boolean,
): TitleSearch {
  const title = schema.fields.find((f) => f.name === schema.titleField);
  if (!title || !isFlagged(title)) return 'part';
  return canReadPii ? 'whole' : 'none';
}

/**
 * Refine filters from the list state: `eq` for selects, checks, numbers, links and personal data (stored
 * encrypted, compared whole: the server refuses `contains` on it), `contains` for other text, and the search
 * text on the title field as `search` says; blanks are dropped.
 */
export function toFilters(
  fields: readonly DeskField[],
  state: ListState,
  titleField: string,
  search: TitleSearch = 'part',
): CrudFilter[] {
  const filters: CrudFilter[] = [];
  for (const field of fields) {
    const value = state.filters[field.name]?.trim();
    if (!value) continue;
    const exact = EXACT_FILTER_TYPES.includes(field.type) || isFlagged(field);
    filters.push({ field: field.name, operator: exact ? 'eq' : 'contains', value });
  }
  const q = state.q?.trim();
  if (q && search !== 'none')
    filters.push({ field: titleField, operator: search === 'whole' ? 'eq' : 'contains', value: q });
  return filters;
}

/** The text of one cell: checks as Yes/No, date-times formatted, linked records as their titles. */
export function displayValue(field: DeskField, value: unknown, titles: LinkTitles): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (field.type === 'datetime') return formatDateTime(value);
  const target = linkTarget(field);
  if (target) return titles[target]?.[String(value)] ?? String(value);
  return String(value);
}
