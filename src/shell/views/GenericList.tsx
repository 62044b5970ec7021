/**
 * The generic list view of a DocType: a search box, filters, a filter builder, a column picker, a sortable
 * table with selection, bulk edit and bulk delete, and a pager, through the shell's record hooks and data
 * provider. Its state (search, filters, conditions, columns, sort, page) is the route's, so it survives a
 * reload and can be shared as a link, and its conditions and columns are remembered per user and DocType;
 * linked records show as their titles, each a link to the record. Each capability lives in `./list/`.
 */

import { lazy, Suspense, useDeferredValue, useEffect, useState } from 'react';
import type { DeskRecord, ListCondition, ListState, ListViewProps } from '../../contract/remote';
import { flaggedFieldNames, isFlagged } from '../../protocol';
import { useRecordList } from '../data/records';
import type { DeskField } from '../fields';
import { useLinkTitles } from '../hooks/use-link-titles';
import { usePermissions } from '../hooks/use-permissions';
import { pluralLabel } from '../words/plural';
import { BulkBar } from './list/BulkBar';
import { ColumnPicker } from './list/ColumnPicker';
import { conditionFilters, validConditions } from './list/conditions';
import { FilterBuilder } from './list/FilterBuilder';
import { ListFilters } from './list/ListFilters';
import { ListPager, pageCount } from './list/ListPager';
import { ListTable, nextSort } from './list/ListTable';
import { useRememberedListState } from './list/list-memory';
import {
  chosenColumns,
  filterableColumns,
  listColumns,
  pickableColumns,
  shownFields,
  titleSearch,
  toFilters,
} from './list/list-model';
import { bulkEditableFields, useBulkEdit } from './list/use-bulk-edit';
import { useBulkSelection } from './list/use-bulk-selection';
import { useFilterDraft, useListState } from './list/use-list-state';
import { Empty, ErrorState, Loading } from './states';

/** The rows of a list that has none yet (one array, so hooks keyed on the rows see no change). */
const NO_ROWS: readonly DeskRecord[] = [];

// The export's code loads after the list: until then the same button, not yet active, holds its place
// (docs/performance.md#the-budget).
const ExportCsv = lazy(() =>
  import(/* webpackChunkName: "route-list-export" */ './list/ExportCsv').then((m) => ({
    default: m.ExportCsv,
  })),
);

// The bulk edit's screens load when they are first needed, like the export.
const BulkEditPanel = lazy(() =>
  import(/* webpackChunkName: "route-list-tools" */ './list/BulkEdit').then((m) => ({
    default: m.BulkEditPanel,
  })),
);
const BulkEditConfirm = lazy(() =>
  import(/* webpackChunkName: "route-list-tools" */ './list/BulkEdit').then((m) => ({
    default: m.BulkEditConfirm,
  })),
);
// The bulk delete's confirmation too: it loads with the first selected row.
const BulkDeleteConfirm = lazy(() =>
  import(/* webpackChunkName: "route-list-tools" */ './list/BulkDeleteConfirm').then((m) => ({
    default: m.BulkDeleteConfirm,
  })),
);
const BulkEditFailures = lazy(() =>
  import(/* webpackChunkName: "route-list-tools" */ './list/BulkEdit').then((m) => ({
    default: m.BulkEditFailures,
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
  // Selection serves bulk edit and bulk delete: without either permission there is nothing to select for.
  const canDelete = permissions.can(docType, 'delete');
  const canWrite = permissions.can(docType, 'write');
  const user = permissions.state.status === 'ready' ? permissions.state.whoami.user : undefined;
  const [routeState, setRouteState] = useListState(externalState, onStateChange);
  const sensitive = flaggedFieldNames(schema);
  const [state, setState] = useRememberedListState(user, docType, routeState, setRouteState, sensitive);
  const canReadPii = permissions.can(docType, 'read_pii');
  const readable = pickableColumns(schema, canReadPii);
  const search = titleSearch(schema, canReadPii);
  const columns = chosenColumns(schema, state.columns, readable);
  // The DocType's own columns link their first to the record; picked ones link the title, wherever it is.
  const picked = Boolean(state.columns?.some((name) => readable.some((f) => f.name === name)));
  const linkField =
    picked && columns.some((f) => f.name === schema.titleField) ? schema.titleField : undefined;
  // The fixed filter inputs stay those of the DocType's own columns, whatever columns are picked.
  const filterable = filterableColumns(listColumns(schema), schema.titleField, canReadPii);
  // Typing updates the inputs at once and the URL (hence the query) after a pause.
  const [draft, setDraft] = useFilterDraft(state, setState);
  const conditions = validConditions(state.conditions, readable);
  // What an address asked that this list cannot do for this user, dropped and said (a shared link may ask
  // to filter by personal data the user may not see, or to sort by a field stored encrypted).
  const dropped = droppedFromAddress(schema, state, conditions, readable);
  // Left out of the address as well, so a bookmark or a link shared from here no longer asks for it; the
  // notice stays with this list, the state it was about being gone.
  const [leftOut, setLeftOut] = useState<string>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per notice; the state written clears it
  useEffect(() => {
    if (!dropped.notice) return;
    setLeftOut(dropped.notice);
    setState({
      ...state,
      ...(state.conditions ? { conditions } : {}),
      ...(dropped.sort ? { sort: undefined } : {}),
    });
  }, [dropped.notice]);
  const notice = dropped.notice ?? leftOut;

  const filters = [
    ...toFilters(filterable, state, schema.titleField, search),
    ...conditionFilters(conditions, readable),
  ];
  const { page, pageSize } = state;
  const sort = dropped.sort ? undefined : state.sort;
  const { query } = useRecordList<DeskRecord>({
    resource: docType,
    pagination: { currentPage: page, pageSize },
    sorters: sort ? [sort] : [],
    filters,
    fields: shownFields(schema.titleField, columns),
  });
  // The page's rows, deferred: a query's result reaches React through a store it reads synchronously, and
  // rendering a page of rows in the same task would block the browser for as long as the whole table takes;
  // deferred, the table renders in slices, and the list keeps its loading state until the rows are rendered.
  const shown = useDeferredValue(query.data);
  const rendering = shown === undefined && query.data !== undefined;
  const total = shown?.total ?? 0;
  const rows = shown?.data ?? NO_ROWS;
  const titles = useLinkTitles(columns, rows);
  const filtered = filters.length > 0;
  const selection = useBulkSelection(docType, schema.label, state);
  const editable = bulkEditableFields(readable);
  const edit = useBulkEdit(docType, schema, editable);
  const selectable = canDelete || (canWrite && editable.length > 0);
  const plural = pluralLabel(schema.label);
  const rowTitles = Object.fromEntries(rows.map((r) => [String(r.name), String(r[schema.titleField] ?? '')]));

  return (
    <section className="desk-list" aria-label={`${schema.label} list`}>
      <ListFilters
        label={schema.label}
        titleLabel={schema.fields.find((f) => f.name === schema.titleField)?.label ?? 'Title'}
        fields={filterable}
        search={search}
        draft={draft}
        setDraft={setDraft}
        state={state}
        setState={setState}
        filtered={filtered}
      />

      {notice ? (
        <p className="desk-banner desk-banner--warning" role="status">
          {notice}
        </p>
      ) : null}

      <div className="desk-list-tools">
        <FilterBuilder
          fields={readable}
          conditions={conditions}
          onChange={(next) => setState({ ...state, conditions: next, page: 1 })}
          linkTitle={(field, id) => (field.link ? titles[field.link]?.[id] : undefined)}
        />
        <ColumnPicker
          fields={readable}
          columns={columns}
          onChange={(next) => setState({ ...state, columns: next })}
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
      </div>

      {selectable ? (
        <BulkBar
          label={schema.label}
          selection={selection}
          canDelete={canDelete}
          onEdit={canWrite && editable.length > 0 ? () => edit.setEditing(true) : undefined}
        />
      ) : null}
      <Suspense fallback={null}>
        {edit.editing && selection.selected.size > 0 ? (
          <BulkEditPanel label={schema.label} fields={editable} edit={edit} count={selection.selected.size} />
        ) : null}
        {edit.failures.length > 0 ? <BulkEditFailures edit={edit} /> : null}
      </Suspense>

      {query.isLoading || rendering ? (
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
          linkField={linkField}
          rows={rows}
          titles={titles}
          sort={sort}
          onToggleSort={(field) => setState({ ...state, sort: nextSort(sort, field), page: 1 })}
          page={page}
          pages={pageCount(total, pageSize)}
          busy={query.isFetching}
          selected={selectable ? selection.selected : undefined}
          onSelect={selection.setSelected}
        />
      )}

      <ListPager
        label={schema.label}
        total={total}
        totalIsLowerBound={shown?.total_is_lower_bound === true}
        state={state}
        setState={setState}
      />

      {/* Mounted with the first selected row, so its code is there by the time Delete is pressed. */}
      {selection.selected.size > 0 || selection.confirming ? (
        <Suspense fallback={null}>
          <BulkDeleteConfirm label={schema.label} selection={selection} />
        </Suspense>
      ) : null}
      {edit.confirming ? (
        <Suspense fallback={null}>
          <BulkEditConfirm
            label={schema.label}
            edit={edit}
            count={selection.selected.size}
            onApply={() =>
              void edit.apply([...selection.selected], rowTitles).then(() => selection.setSelected(new Set()))
            }
          />
        </Suspense>
      ) : null}
    </section>
  );
}

/**
 * The parts of the list's address state this list leaves out, and the sentence that tells the user: filters
 * on fields the user may not filter by (not among `readable`, the personal data they get masked) and a sort
 * by a field stored encrypted, which the server refuses (`field_encrypted`).
 */
function droppedFromAddress(
  schema: ListViewProps['schema'],
  state: ListState,
  kept: readonly ListCondition[],
  readable: readonly DeskField[],
): { sort: boolean; notice?: string } {
  const labelOf = (name: string) => schema.fields.find((f) => f.name === name)?.label ?? name;
  const unfilterable = (state.conditions ?? [])
    .filter((c) => !kept.includes(c) && !readable.some((f) => f.name === c.field))
    .map((c) => labelOf(c.field));
  const sorted = state.sort && schema.fields.find((f) => f.name === state.sort!.field);
  const sort = sorted !== undefined && isFlagged(sorted);
  const words: string[] = [];
  if (unfilterable.length > 0) {
    const names = [...new Set(unfilterable)].join(', ');
    words.push(`The link's filter on ${names} was left out: it is personal data you may not see.`);
  }
  if (sort)
    words.push(`Not sorted by ${sorted!.label}: personal data is stored encrypted and cannot be sorted.`);
  return { sort, ...(words.length > 0 ? { notice: words.join(' ') } : {}) };
}
