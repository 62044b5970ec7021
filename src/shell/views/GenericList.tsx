/**
 * The generic list view of a DocType: a search box, filters, a sortable table with selection and bulk
 * delete, and a pager, through Refine's `useList` and the shell's data provider. Its state (search, filters,
 * sort, page) is the route's, so it survives a reload and can be shared as a link; linked records show as
 * their titles, each a link to the record.
 */
import type { CrudFilter } from '@refinedev/core';
import { useEffect, useId, useState } from 'react';
import type { FieldSchema } from '../../protocol';
import { useDeleteRecords, useInvalidateRecords, useRecordList } from '../data/records';
import { type DeskField, deskFields, formatDateTime, linkTarget } from '../fields';
import { useDebounced } from '../hooks/use-debounced';
import { type LinkTitles, useLinkTitles } from '../hooks/use-link-titles';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import type { DeskRecord, ListViewProps } from '../remote-contract';
import { DEFAULT_PAGE_SIZE, emptyListState, formatRoute, type ListState } from '../routing/route';
import { failureWords } from '../words/failure';
import { countOf, pluralLabel } from '../words/plural';
import { ConfirmDialog } from './ConfirmDialog';
import { LinkInput } from './LinkInput';
import { Empty, ErrorState, Loading } from './states';

/** Page sizes offered to the user. */
export const PAGE_SIZES = [10, DEFAULT_PAGE_SIZE, 50] as const;

/** The columns of a list: fields flagged `inList`, else the first four fields; the title field first. */
export function listColumns(schema: { fields: readonly FieldSchema[]; titleField: string }): DeskField[] {
  const fields = deskFields(schema);
  const flagged = fields.filter((f) => f.inList);
  const columns = flagged.length > 0 ? flagged : fields.slice(0, 4);
  const title = fields.find((f) => f.name === schema.titleField);
  return title && !columns.includes(title) ? [title, ...columns] : columns;
}

/**
 * Refine filters from the list state: `eq` for selects, checks, numbers and links, `contains` for text,
 * and the search text as `contains` on the title field; blanks are dropped.
 */
export function toFilters(fields: readonly DeskField[], state: ListState, titleField: string): CrudFilter[] {
  const filters: CrudFilter[] = [];
  for (const field of fields) {
    const value = state.filters[field.name]?.trim();
    if (!value) continue;
    const exact = ['select', 'boolean', 'int', 'float', 'currency', 'link', 'date'].includes(field.type);
    filters.push({ field: field.name, operator: exact ? 'eq' : 'contains', value });
  }
  const q = state.q?.trim();
  if (q) filters.push({ field: titleField, operator: 'contains', value: q });
  return filters;
}

function display(field: DeskField, value: unknown, titles: LinkTitles): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (field.type === 'datetime') return formatDateTime(value);
  const target = linkTarget(field);
  if (target) return titles[target]?.[String(value)] ?? String(value);
  return String(value);
}

/** List state kept inside the view, for hosts that do not put it in the URL. */
function useListState(
  external: ListState | undefined,
  onExternalChange: ((state: ListState) => void) | undefined,
): [ListState, (state: ListState) => void] {
  const [local, setLocal] = useState<ListState>(emptyListState);
  if (external && onExternalChange) return [external, onExternalChange];
  return [local, setLocal];
}

/** The generic list view (see {@link ListViewProps}). */
export function GenericList({
  docType,
  schema,
  onCreate,
  state: externalState,
  onStateChange,
}: ListViewProps): React.JSX.Element {
  const { notices } = usePlatform();
  const permissions = usePermissions();
  // Selection only serves bulk delete: without the delete permission there is nothing to select for.
  const canDelete = permissions.can(docType, 'delete');
  const [state, setState] = useListState(externalState, onStateChange);
  const columns = listColumns(schema);
  const filterable = columns.filter((f) => f.type !== 'boolean' && f.name !== schema.titleField);
  const filterId = useId();
  const invalidate = useInvalidateRecords();

  // Typing updates the inputs at once and the URL (hence the query) after a pause.
  const [draft, setDraft] = useState({ q: state.q ?? '', filters: state.filters });
  const settled = useDebounced(draft, 300);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a settled draft writes the state; a change from outside resets the draft below
  useEffect(() => {
    const same =
      (settled.q || undefined) === (state.q || undefined) &&
      JSON.stringify(settled.filters) === JSON.stringify(state.filters);
    if (!same) setState({ ...state, q: settled.q || undefined, filters: settled.filters, page: 1 });
  }, [settled]);
  const stateKey = JSON.stringify({ q: state.q ?? '', filters: state.filters });
  useEffect(() => {
    const parsed = JSON.parse(stateKey) as { q: string; filters: Record<string, string> };
    setDraft((d) => (JSON.stringify(d) === stateKey ? d : parsed));
  }, [stateKey]);

  const filters = toFilters(filterable, state, schema.titleField);
  const { page, pageSize, sort } = state;
  const { query, result } = useRecordList<DeskRecord>({
    resource: docType,
    pagination: { currentPage: page, pageSize },
    sorters: sort ? [sort] : [],
    filters,
  });
  const total = result.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const rows = result.data ?? [];
  const titles = useLinkTitles(columns, rows);
  const filtered = filters.length > 0;

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const { mutateAsync: deleteMany, mutation: deleting } = useDeleteRecords();
  const rowIds = rows.map((r) => String(r.name ?? ''));
  const allSelected = rowIds.length > 0 && rowIds.every((id) => selected.has(id));
  // biome-ignore lint/correctness/useExhaustiveDependencies: the dependencies are the triggers, not inputs
  useEffect(() => {
    // Selection is of visible rows only: a new page, filter or sort starts with none.
    setSelected(new Set());
  }, [docType, page, pageSize, stateKey, sort?.field, sort?.order]);

  const toggleSort = (field: string) => {
    const next =
      sort?.field !== field
        ? ({ field, order: 'asc' } as const)
        : sort.order === 'asc'
          ? ({ field, order: 'desc' } as const)
          : undefined;
    setState({ ...state, sort: next, page: 1 });
  };

  const deleteSelected = async () => {
    const ids = [...selected];
    try {
      await deleteMany({ resource: docType, ids });
      notices.show(`Deleted ${countOf(ids.length, schema.label)}.`);
    } catch (error) {
      notices.show(
        `Not every ${schema.label.toLowerCase()} could be deleted. ${failureWords(error).message}`,
        'error',
      );
    } finally {
      setConfirming(false);
      setSelected(new Set());
      void invalidate({ resource: docType, invalidates: ['list', 'many'] });
    }
  };

  const setFilterDraft = (field: string, value: string) =>
    setDraft((d) => ({ ...d, filters: { ...d.filters, [field]: value } }));

  return (
    <section className="desk-list" aria-label={`${schema.label} list`}>
      <search className="desk-filters" aria-label={`Filter ${pluralLabel(schema.label).toLowerCase()}`}>
        <div className="desk-filters__item desk-filters__item--search">
          <label htmlFor={`${filterId}-q`}>Search</label>
          <input
            id={`${filterId}-q`}
            type="search"
            placeholder={`${schema.fields.find((f) => f.name === schema.titleField)?.label ?? 'Title'} contains…`}
            value={draft.q}
            onChange={(e) => setDraft((d) => ({ ...d, q: e.target.value }))}
          />
        </div>
        {filterable.map((field) => (
          <div key={field.name} className="desk-filters__item">
            <label htmlFor={`${filterId}-${field.name}`}>{field.label}</label>
            {linkTarget(field) ? (
              // A Link filter picks a record by its title, like the form does; the URL keeps its id.
              <LinkInput
                id={`${filterId}-${field.name}`}
                name={field.name}
                target={linkTarget(field)!}
                value={draft.filters[field.name]}
                onChange={(value) => {
                  const filtersNow = { ...draft.filters, [field.name]: value ?? '' };
                  setDraft((d) => ({ ...d, filters: filtersNow }));
                  setState({ ...state, q: draft.q || undefined, filters: filtersNow, page: 1 });
                }}
              />
            ) : field.type === 'select' && field.options ? (
              <select
                id={`${filterId}-${field.name}`}
                value={draft.filters[field.name] ?? ''}
                onChange={(e) => {
                  const filtersNow = { ...draft.filters, [field.name]: e.target.value };
                  setDraft((d) => ({ ...d, filters: filtersNow }));
                  setState({ ...state, q: draft.q || undefined, filters: filtersNow, page: 1 });
                }}
              >
                <option value="">Any</option>
                {field.options.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={`${filterId}-${field.name}`}
                type="search"
                value={draft.filters[field.name] ?? ''}
                onChange={(e) => setFilterDraft(field.name, e.target.value)}
              />
            )}
          </div>
        ))}
        {filtered ? (
          <button
            type="button"
            className="desk-button desk-button--link"
            onClick={() => {
              setDraft({ q: '', filters: {} });
              setState({ ...state, q: undefined, filters: {}, page: 1 });
            }}
          >
            Clear filters
          </button>
        ) : null}
      </search>

      {canDelete && selected.size > 0 ? (
        <section className="desk-bulk" aria-label="Selection">
          <span>{countOf(selected.size, schema.label)} selected</span>
          <button
            type="button"
            className="desk-button desk-button--danger"
            onClick={() => setConfirming(true)}
          >
            Delete
          </button>
          <button
            type="button"
            className="desk-button desk-button--link"
            onClick={() => setSelected(new Set())}
          >
            Clear selection
          </button>
        </section>
      ) : null}

      {query.isLoading ? (
        <Loading label={`Loading ${pluralLabel(schema.label).toLowerCase()}…`} />
      ) : query.isError ? (
        <ErrorState
          title={`${pluralLabel(schema.label)} could not be loaded.`}
          error={query.error}
          onRetry={() => query.refetch()}
        />
      ) : rows.length === 0 ? (
        <Empty
          title={
            filtered
              ? `No ${pluralLabel(schema.label).toLowerCase()} match these filters.`
              : `No ${pluralLabel(schema.label).toLowerCase()} yet.`
          }
        >
          {filtered || !permissions.can(docType, 'create') ? null : (
            <button type="button" className="desk-button desk-button--primary" onClick={onCreate}>
              Create the first {schema.label.toLowerCase()}
            </button>
          )}
        </Empty>
      ) : (
        <div className="desk-table-wrap">
          <table className="desk-table" aria-busy={query.isFetching || undefined}>
            <caption className="desk-visually-hidden">
              {pluralLabel(schema.label)}, page {page} of {pages}
            </caption>
            <thead>
              <tr>
                {canDelete ? (
                  <th scope="col" className="desk-table__select">
                    <input
                      type="checkbox"
                      aria-label="Select all on this page"
                      checked={allSelected}
                      onChange={(e) => setSelected(e.target.checked ? new Set(rowIds) : new Set())}
                    />
                  </th>
                ) : null}
                {columns.map((field) => {
                  const active = sort?.field === field.name;
                  return (
                    <th
                      key={field.name}
                      scope="col"
                      aria-sort={active ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}
                    >
                      <button type="button" className="desk-sort" onClick={() => toggleSort(field.name)}>
                        {field.label}
                        <span aria-hidden="true" className="desk-sort__icon">
                          {active ? (sort.order === 'asc' ? '▲' : '▼') : '↕'}
                        </span>
                      </button>
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => {
                const id = String(row.name ?? index);
                return (
                  <tr key={id} className={selected.has(id) ? 'is-selected' : undefined}>
                    {canDelete ? (
                      <td className="desk-table__select">
                        <input
                          type="checkbox"
                          aria-label={`Select ${String(row[schema.titleField] ?? id)}`}
                          checked={selected.has(id)}
                          onChange={(e) => {
                            const next = new Set(selected);
                            if (e.target.checked) next.add(id);
                            else next.delete(id);
                            setSelected(next);
                          }}
                        />
                      </td>
                    ) : null}
                    {columns.map((field, i) => {
                      const target = linkTarget(field);
                      const value = row[field.name];
                      const text = display(field, value, titles);
                      return (
                        <td key={field.name} data-label={field.label}>
                          {i === 0 && row.name !== undefined ? (
                            <a href={formatRoute({ kind: 'edit', docType, id })}>{text || id}</a>
                          ) : target && typeof value === 'string' && value ? (
                            <a href={formatRoute({ kind: 'edit', docType: target, id: value })}>{text}</a>
                          ) : (
                            text
                          )}
                        </td>
                      );
                    })}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      <nav className="desk-pager" aria-label="Pagination">
        <span className="desk-pager__info" aria-live="polite">
          {total === 0
            ? countOf(0, schema.label)
            : `${(page - 1) * pageSize + 1}–${Math.min(page * pageSize, total)} of ${countOf(total, schema.label)}`}
        </span>
        <label className="desk-pager__size">
          Per page{' '}
          <select
            value={pageSize}
            onChange={(e) => setState({ ...state, page: 1, pageSize: Number(e.target.value) })}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="desk-button"
          disabled={page <= 1}
          onClick={() => setState({ ...state, page: page - 1 })}
        >
          Previous
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button
          type="button"
          className="desk-button"
          disabled={page >= pages}
          onClick={() => setState({ ...state, page: page + 1 })}
        >
          Next
        </button>
      </nav>

      {confirming ? (
        <ConfirmDialog
          title={`Delete ${countOf(selected.size, schema.label)}?`}
          confirmLabel="Delete"
          busy={deleting.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void deleteSelected()}
        >
          <p>This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
