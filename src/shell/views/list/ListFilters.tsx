/**
 * The generic list's filter bar: the search on the title field, one input per filterable column (a record
 * picker for a Link, a choice for a Select, text otherwise) and "Clear filters" (which also removes the
 * filter builder's conditions). Text applies after a pause (the draft); a picked record or option applies at
 * once.
 */
import { lazy, Suspense, useId } from 'react';
import { isFlagged } from '../../../protocol';
import { type DeskField, linkTarget } from '../../fields';
import type { ListState } from '../../routing/route';
import { pluralLabel } from '../../words/plural';
import type { TitleSearch } from './list-model';
import type { FilterDraft } from './use-list-state';

// A Link filter's record picker loads after the list: until then an input, not yet active, holds its place
// (docs/performance.md#the-budget).
const LinkInput = lazy(() =>
  import(/* webpackChunkName: "route-list-link" */ '../LinkInput').then((m) => ({ default: m.LinkInput })),
);

/** The place of a Link filter's picker while its code loads: the same box, not yet active. */
function LinkInputPlaceholder({ id }: { id: string }): React.JSX.Element {
  return (
    <div className="desk-link">
      <div className="desk-link__row">
        <input id={id} placeholder="Search…" disabled />
      </div>
    </div>
  );
}

/** Props of {@link ListFilters}. */
export interface ListFiltersProps {
  /** The DocType's label (`Customer`). */
  label: string;
  /** The search box's placeholder subject: the title field's label. */
  titleLabel: string;
  /** The columns with a filter input. */
  fields: readonly DeskField[];
  /** How the search box matches the title (no box for `none`); a part of it unless said. */
  search?: TitleSearch;
  draft: FilterDraft;
  setDraft: (update: (draft: FilterDraft) => FilterDraft) => void;
  state: ListState;
  setState: (state: ListState) => void;
  /** Whether the list is filtered now (shows "Clear filters"). */
  filtered: boolean;
}

/** The search and filter inputs of a list. */
export function ListFilters({
  label,
  titleLabel,
  fields,
  search = 'part',
  draft,
  setDraft,
  state,
  setState,
  filtered,
}: ListFiltersProps): React.JSX.Element {
  const filterId = useId();
  // A picked value applies at once: the draft and the state change together.
  const applyNow = (field: string, value: string) => {
    const filtersNow = { ...draft.filters, [field]: value };
    setDraft((d) => ({ ...d, filters: filtersNow }));
    setState({ ...state, q: draft.q || undefined, filters: filtersNow, page: 1 });
  };
  const setFilterDraft = (field: string, value: string) =>
    setDraft((d) => ({ ...d, filters: { ...d.filters, [field]: value } }));

  return (
    <search className="desk-filters" aria-label={`Filter ${pluralLabel(label).toLowerCase()}`}>
      {search === 'none' ? null : (
        <div className="desk-filters__item desk-filters__item--search">
          <label htmlFor={`${filterId}-q`}>Search</label>
          <input
            id={`${filterId}-q`}
            type="search"
            placeholder={search === 'whole' ? `${titleLabel}, whole value…` : `${titleLabel} contains…`}
            value={draft.q}
            onChange={(e) => setDraft((d) => ({ ...d, q: e.target.value }))}
          />
        </div>
      )}
      {fields.map((field) => (
        <div key={field.name} className="desk-filters__item">
          <label htmlFor={`${filterId}-${field.name}`}>{field.label}</label>
          {linkTarget(field) ? (
            // A Link filter picks a record by its title, like the form does; the URL keeps its id.
            <Suspense fallback={<LinkInputPlaceholder id={`${filterId}-${field.name}`} />}>
              <LinkInput
                id={`${filterId}-${field.name}`}
                name={field.name}
                target={linkTarget(field)!}
                value={draft.filters[field.name]}
                onChange={(value) => applyNow(field.name, value ?? '')}
              />
            </Suspense>
          ) : field.type === 'select' && field.options ? (
            <select
              id={`${filterId}-${field.name}`}
              value={draft.filters[field.name] ?? ''}
              onChange={(e) => applyNow(field.name, e.target.value)}
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
              // Personal data is stored encrypted: it is found by its whole value only.
              placeholder={isFlagged(field) ? 'Whole value…' : undefined}
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
            setDraft(() => ({ q: '', filters: {} }));
            setState({ ...state, q: undefined, filters: {}, conditions: [], page: 1 });
          }}
        >
          Clear filters
        </button>
      ) : null}
    </search>
  );
}
