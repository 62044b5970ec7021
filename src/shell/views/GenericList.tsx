/**
 * The generic list view of a DocType: a search box, filters, a sortable table with selection and bulk
 * delete, and a pager, through the shell's record hooks and data provider. Its state (search, filters, sort,
 * page) is the route's, so it survives a reload and can be shared as a link; linked records show as their
 * titles, each a link to the record. Each capability lives in `./list/`.
 */

import { lazy, Suspense } from 'react';
import type { DeskRecord, ListViewProps } from '../../contract/remote';
import { useRecordList } from '../data/records';
import { useLinkTitles } from '../hooks/use-link-titles';
import { usePermissions } from '../hooks/use-permissions';
import { pluralLabel } from '../words/plural';
import { BulkBar, BulkDeleteConfirm } from './list/BulkBar';
import { ListFilters } from './list/ListFilters';
import { ListPager, pageCount } from './list/ListPager';
import { ListTable, nextSort } from './list/ListTable';
import { filterableColumns, listColumns, toFilters } from './list/list-model';
import { useBulkSelection } from './list/use-bulk-selection';
import { useFilterDraft, useListState } from './list/use-list-state';
import { Empty, ErrorState, Loading } from './states';

// The export's code loads after the list: until then the same button, not yet active, holds its place
// (docs/performance.md#the-budget).
const ExportCsv = lazy(() =>
  import(/* webpackChunkName: "route-list-export" */ './list/ExportCsv').then((m) => ({
    default: m.ExportCsv,
  })),
);

function ExportCsvPlaceholder(): React.JSX.Element {
  return (
    <div className="desk-export">
      <button type="button" className="desk-button desk-button--small" disabled>
        Export CSV
      </button>
    </div>
  );
}

// The import's code (its dialog) loads only when a user who may create opens a list.
const ImportCsv = lazy(() =>
  import(/* webpackChunkName: "route-list-import" */ './list/ImportCsv').then((m) => ({
    default: m.ImportCsv,
  })),
);

function ImportPlaceholder(): React.JSX.Element {
  return (
    <button type="button" className="desk-button desk-button--small" disabled>
      Import
    </button>
  );
}

export { listColumns, PAGE_SIZES, toFilters } from './list/list-model';

/** The generic list view (see {@link ListViewProps}). */
export function GenericList({
  docType,
  schema,
  onCreate,
  state: externalState,
  onStateChange,
}: ListViewProps): React.JSX.Element {
  const permissions = usePermissions();
  // Selection only serves bulk delete: without the delete permission there is nothing to select for.
  const canDelete = permissions.can(docType, 'delete');
  const [state, setState] = useListState(externalState, onStateChange);
  const columns = listColumns(schema);
  const filterable = filterableColumns(columns, schema.titleField);
  // Typing updates the inputs at once and the URL (hence the query) after a pause.
  const [draft, setDraft] = useFilterDraft(state, setState);

  const filters = toFilters(filterable, state, schema.titleField);
  const { page, pageSize, sort } = state;
  const { query, result } = useRecordList<DeskRecord>({
    resource: docType,
    pagination: { currentPage: page, pageSize },
    sorters: sort ? [sort] : [],
    filters,
  });
  const total = result.total ?? 0;
  const rows = result.data ?? [];
  const titles = useLinkTitles(columns, rows);
  const filtered = filters.length > 0;
  const selection = useBulkSelection(docType, schema.label, state);
  const plural = pluralLabel(schema.label);

  return (
    <section className="desk-list" aria-label={`${schema.label} list`}>
      <ListFilters
        label={schema.label}
        titleLabel={schema.fields.find((f) => f.name === schema.titleField)?.label ?? 'Title'}
        fields={filterable}
        draft={draft}
        setDraft={setDraft}
        state={state}
        setState={setState}
        filtered={filtered}
      />

      <div className="desk-list__actions">
        {permissions.can(docType, 'create') ? (
          <Suspense fallback={<ImportPlaceholder />}>
            <ImportCsv docType={docType} schema={schema} plural={plural} />
          </Suspense>
        ) : null}
        <Suspense fallback={<ExportCsvPlaceholder />}>
          <ExportCsv docType={docType} plural={plural} columns={columns} filters={filters} sort={sort} />
        </Suspense>
      </div>

      {canDelete ? <BulkBar label={schema.label} selection={selection} /> : null}

      {query.isLoading ? (
        <Loading label={`Loading ${plural.toLowerCase()}…`} />
      ) : query.isError ? (
        <ErrorState
          title={`${plural} could not be loaded.`}
          error={query.error}
          onRetry={() => query.refetch()}
        />
      ) : rows.length === 0 ? (
        <Empty
          title={
            filtered ? `No ${plural.toLowerCase()} match these filters.` : `No ${plural.toLowerCase()} yet.`
          }
        >
          {filtered || !permissions.can(docType, 'create') ? null : (
            <button type="button" className="desk-button desk-button--primary" onClick={onCreate}>
              Create the first {schema.label.toLowerCase()}
            </button>
          )}
        </Empty>
      ) : (
        <ListTable
          docType={docType}
          label={schema.label}
          titleField={schema.titleField}
          columns={columns}
          rows={rows}
          titles={titles}
          sort={sort}
          onToggleSort={(field) => setState({ ...state, sort: nextSort(sort, field), page: 1 })}
          page={page}
          pages={pageCount(total, pageSize)}
          busy={query.isFetching}
          selected={canDelete ? selection.selected : undefined}
          onSelect={selection.setSelected}
        />
      )}

      <ListPager
        label={schema.label}
        total={total}
        totalIsLowerBound={query.data?.total_is_lower_bound === true}
        state={state}
        setState={setState}
      />

      <BulkDeleteConfirm label={schema.label} selection={selection} />
    </section>
  );
}
