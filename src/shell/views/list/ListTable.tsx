/**
 * The generic list's table: a sortable header per column, a checkbox per row when rows can be selected,
 * and cells that link one column (the first, unless told otherwise) to the record and a linked record to its
 * own form, and last who changed each record and how long ago (sorted by the time of the change).
 */

import type { DeskRecord } from '../../../contract/remote';
import { isFlagged } from '../../../protocol';
import { type DeskField, formatDateTime, linkTarget } from '../../fields';
import type { LinkTitles } from '../../hooks/use-link-titles';
import { formatRoute, type ListState } from '../../routing/route';
import { pluralLabel } from '../../words/plural';
import { relativeTime } from '../../words/relative-time';
import { displayValue } from './list-model';

/** Props of {@link ListTable}. */
export interface ListTableProps {
  docType: string;
  /** The DocType's label (`Customer`) and title field, for the caption and the checkboxes' names. */
  label: string;
  titleField: string;
  columns: readonly DeskField[];
  /** The column whose cells link to the record; default the first. */
  linkField?: string;
  rows: readonly DeskRecord[];
  /** Titles of the linked records shown. */
  titles: LinkTitles;
  /** The sort shown in the headers; a header toggles it. */
  sort: ListState['sort'];
  onToggleSort: (field: string) => void;
  page: number;
  pages: number;
  /** Whether the rows are being fetched again (the table is marked busy). */
  busy: boolean;
  /** The selected rows' ids, or undefined when rows cannot be selected (no checkboxes). */
  selected: ReadonlySet<string> | undefined;
  onSelect: (selected: ReadonlySet<string>) => void;
}

/** The next sort when a column's header is pressed: ascending, then descending, then none. */
export function nextSort(sort: ListState['sort'], field: string): ListState['sort'] {
  if (sort?.field !== field) return { field, order: 'asc' };
  return sort.order === 'asc' ? { field, order: 'desc' } : undefined;
}

/** The rows of one page of a list. */
export function ListTable(props: ListTableProps): React.JSX.Element {
  const { docType, columns, rows, sort, selected } = props;
  const rowIds = rows.map((r) => String(r.name ?? ''));
  const allSelected = rowIds.length > 0 && selected !== undefined && rowIds.every((id) => selected.has(id));
  const linked = props.linkField ?? columns[0]?.name;
  return (
    <div className="desk-table-wrap">
      <table className="desk-table" aria-busy={props.busy || undefined}>
        <caption className="desk-visually-hidden">
          {pluralLabel(props.label)}, page {props.page} of {props.pages}
        </caption>
        <thead>
          <tr>
            {selected ? (
              <th scope="col" className="desk-table__select">
                <input
                  type="checkbox"
                  aria-label="Select all on this page"
                  checked={allSelected}
                  onChange={(e) => props.onSelect(e.target.checked ? new Set(rowIds) : new Set())}
                />
              </th>
            ) : null}
            {columns.map((field) =>
              // Personal data is stored encrypted: the server cannot order by it, so it offers no sort.
              isFlagged(field) ? (
                <th key={field.name} scope="col">
                  {field.label}
                </th>
              ) : (
                <SortHeader
                  key={field.name}
                  field={field.name}
                  label={field.label}
                  sort={sort}
                  onToggle={props.onToggleSort}
                />
              ),
            )}
            <SortHeader field="modified" label={LAST_CHANGED} sort={sort} onToggle={props.onToggleSort} />
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const id = String(row.name ?? index);
            return (
              <tr key={id} className={selected?.has(id) ? 'is-selected' : undefined}>
                {selected ? (
                  <td className="desk-table__select">
                    <input
                      type="checkbox"
                      aria-label={`Select ${String(row[props.titleField] ?? id)}`}
                      checked={selected.has(id)}
                      onChange={(e) => {
                        const next = new Set(selected);
                        if (e.target.checked) next.add(id);
                        else next.delete(id);
                        props.onSelect(next);
                      }}
                    />
                  </td>
                ) : null}
                {columns.map((field) => {
                  const target = linkTarget(field);
                  const value = row[field.name];
                  const text = displayValue(field, value, props.titles);
                  return (
                    <td key={field.name} data-label={field.label}>
                      {field.name === linked && row.name !== undefined ? (
                        <a href={formatRoute({ kind: 'edit', docType, id })}>{text || id}</a>
                      ) : target && typeof value === 'string' && value ? (
                        <a href={formatRoute({ kind: 'edit', docType: target, id: value })}>{text}</a>
                      ) : (
                        text
                      )}
                    </td>
                  );
                })}
                <td data-label={LAST_CHANGED} className="desk-table__changed">
                  <LastChanged by={row.modified_by} at={row.modified} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The heading of the column that says who changed each record last, and when. */
const LAST_CHANGED = 'Last changed by';

function SortHeader({
  field,
  label,
  sort,
  onToggle,
}: {
  field: string;
  label: string;
  sort: ListState['sort'];
  onToggle: (field: string) => void;
}): React.JSX.Element {
  const active = sort?.field === field;
  return (
    <th scope="col" aria-sort={active ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="desk-sort" onClick={() => onToggle(field)}>
        {label}
        <span aria-hidden="true" className="desk-sort__icon">
          {active ? (sort.order === 'asc' ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </th>
  );
}

/** "sam · 5 minutes ago", the exact time in the tooltip; only the time for a record no one is named for. */
function LastChanged({ by, at }: { by: unknown; at: unknown }): React.JSX.Element | null {
  const when = relativeTime(at);
  const who = typeof by === 'string' && by ? by : undefined;
  if (!when && !who) return null;
  return (
    <>
      {who ? <span className="desk-table__author">{who}</span> : null}
      {who && when ? ' · ' : null}
      {when ? (
        <time dateTime={String(at)} title={formatDateTime(at)}>
          {when}
        </time>
      ) : null}
    </>
  );
}
