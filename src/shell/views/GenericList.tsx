/**
 * The generic list view of a DocType: a table of its list fields with server-side paging, sorting and
 * filters, through Refine's `useList` and the shell's data provider.
 */
import { type CrudFilter, type CrudSort, useList } from '@refinedev/core';
import { useEffect, useId, useState } from 'react';
import type { FieldSchema } from '../../protocol';
import type { DeskRecord, ListViewProps } from '../remote-contract';
import { formatRoute } from '../routing/route';
import { describeError, Empty, ErrorState, Loading } from './states';

/** Page sizes offered to the user. */
export const PAGE_SIZES = [10, 20, 50] as const;

/** The columns of a list: fields flagged `inList`, else the first four fields. */
export function listColumns(schema: { fields: FieldSchema[]; titleField: string }): FieldSchema[] {
  const flagged = schema.fields.filter((f) => f.inList);
  const columns = flagged.length > 0 ? flagged : schema.fields.slice(0, 4);
  const title = schema.fields.find((f) => f.name === schema.titleField);
  return title && !columns.includes(title) ? [title, ...columns] : columns;
}

/** Refine filters from the filter inputs: `eq` for selects, `contains` for text; blanks are dropped. */
export function toFilters(fields: FieldSchema[], values: Record<string, string>): CrudFilter[] {
  const filters: CrudFilter[] = [];
  for (const field of fields) {
    const value = values[field.name]?.trim();
    if (!value) continue;
    const exact = field.type === 'select' || field.type === 'boolean' || field.type === 'int';
    filters.push({ field: field.name, operator: exact ? 'eq' : 'contains', value });
  }
  return filters;
}

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return debounced;
}

function display(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

/** The generic list view (see {@link ListViewProps}). */
export function GenericList({ docType, schema, onCreate }: ListViewProps): React.JSX.Element {
  const columns = listColumns(schema);
  const filterable = columns.filter((f) => f.type !== 'boolean');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState<number>(PAGE_SIZES[1]);
  const [sort, setSort] = useState<CrudSort | undefined>();
  const [filterValues, setFilterValues] = useState<Record<string, string>>({});
  const filters = toFilters(filterable, useDebounced(filterValues, 250));
  const filterId = useId();

  const { query, result } = useList<DeskRecord>({
    resource: docType,
    pagination: { currentPage: page, pageSize },
    sorters: sort ? [sort] : [],
    filters,
  });
  const total = result.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const rows = result.data ?? [];
  const filtered = filters.length > 0;

  const toggleSort = (field: string) => {
    setPage(1);
    setSort((s) =>
      s?.field !== field ? { field, order: 'asc' } : s.order === 'asc' ? { field, order: 'desc' } : undefined,
    );
  };

  return (
    <section className="desk-list" aria-label={`${schema.label} list`}>
      <fieldset className="desk-filters">
        <legend>Filters</legend>
        {filterable.map((field) => (
          <div key={field.name} className="desk-filters__item">
            <label htmlFor={`${filterId}-${field.name}`}>{field.label}</label>
            {field.type === 'select' && field.options ? (
              <select
                id={`${filterId}-${field.name}`}
                value={filterValues[field.name] ?? ''}
                onChange={(e) => {
                  setPage(1);
                  setFilterValues((v) => ({ ...v, [field.name]: e.target.value }));
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
                value={filterValues[field.name] ?? ''}
                onChange={(e) => {
                  setPage(1);
                  setFilterValues((v) => ({ ...v, [field.name]: e.target.value }));
                }}
              />
            )}
          </div>
        ))}
        {filtered ? (
          <button type="button" className="desk-button desk-button--link" onClick={() => setFilterValues({})}>
            Clear filters
          </button>
        ) : null}
      </fieldset>

      {query.isLoading ? (
        <Loading label={`Loading ${schema.label} records…`} />
      ) : query.isError ? (
        <ErrorState
          title={`Could not load ${schema.label} records.`}
          {...describeError(query.error)}
          onRetry={() => query.refetch()}
        />
      ) : rows.length === 0 ? (
        <Empty title={filtered ? 'No records match these filters.' : `No ${schema.label} records yet.`}>
          {filtered ? null : (
            <button type="button" className="desk-button desk-button--primary" onClick={onCreate}>
              Create the first {schema.label}
            </button>
          )}
        </Empty>
      ) : (
        <div className="desk-table-wrap">
          <table className="desk-table" aria-busy={query.isFetching || undefined}>
            <caption className="desk-visually-hidden">
              {schema.label} records, page {page} of {pages}
            </caption>
            <thead>
              <tr>
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
              {rows.map((row, index) => (
                <tr key={String(row.name ?? index)}>
                  {columns.map((field, i) => (
                    <td key={field.name} data-label={field.label}>
                      {i === 0 && row.name !== undefined ? (
                        <a href={formatRoute({ kind: 'edit', docType, id: String(row.name) })}>
                          {display(row[field.name] ?? row.name)}
                        </a>
                      ) : (
                        display(row[field.name])
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <nav className="desk-pager" aria-label="Pagination">
        <span className="desk-pager__info" aria-live="polite">
          {total === 0
            ? '0 records'
            : `${(page - 1) * pageSize + 1}–${Math.min(page * pageSize, total)} of ${total}`}
        </span>
        <label className="desk-pager__size">
          Per page{' '}
          <select
            value={pageSize}
            onChange={(e) => {
              setPage(1);
              setPageSize(Number(e.target.value));
            }}
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
          onClick={() => setPage((p) => p - 1)}
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
          onClick={() => setPage((p) => p + 1)}
        >
          Next
        </button>
      </nav>
    </section>
  );
}
