/**
 * The generic list's state hooks: where its state lives (the route's, or the view's own) and the filter
 * inputs' draft, which follows typing at once and writes the state after a pause.
 */
import { useEffect, useState } from 'react';
import { useDebounced } from '../../hooks/use-debounced';
import { emptyListState, type ListState } from '../../routing/route';

/** How long typing in the search or a filter pauses before the list's state (hence its query) changes. */
export const FILTER_DEBOUNCE_MS = 300;

/** List state kept inside the view, for hosts that do not put it in the URL. */
export function useListState(
  external: ListState | undefined,
  onExternalChange: ((state: ListState) => void) | undefined,
): [ListState, (state: ListState) => void] {
  const [local, setLocal] = useState<ListState>(emptyListState);
  if (external && onExternalChange) return [external, onExternalChange];
  return [local, setLocal];
}

/** What the search and filter inputs show, ahead of the list's state while the user types. */
export interface FilterDraft {
  q: string;
  filters: Record<string, string>;
}

/** The key that changes whenever the state's search or filters do (and only then). */
export function filterKey(state: ListState): string {
  return JSON.stringify({ q: state.q ?? '', filters: state.filters });
}

/**
 * The filter inputs' draft: it changes with every keystroke, and a settled draft moves the list to its first
 * page with those filters. A change of the state from outside (the route, "Clear filters") resets it.
 */
export function useFilterDraft(
  state: ListState,
  setState: (state: ListState) => void,
): [FilterDraft, (update: (draft: FilterDraft) => FilterDraft) => void] {
  const [draft, setDraft] = useState<FilterDraft>({ q: state.q ?? '', filters: state.filters });
  const settled = useDebounced(draft, FILTER_DEBOUNCE_MS);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a settled draft writes the state; a change from outside resets the draft below
  useEffect(() => {
    const same =
      (settled.q || undefined) === (state.q || undefined) &&
      JSON.stringify(settled.filters) === JSON.stringify(state.filters);
    if (!same) setState({ ...state, q: settled.q || undefined, filters: settled.filters, page: 1 });
  }, [settled]);
  const stateKey = filterKey(state);
  useEffect(() => {
    const parsed = JSON.parse(stateKey) as FilterDraft;
    setDraft((d) => (JSON.stringify(d) === stateKey ? d : parsed));
  }, [stateKey]);
  return [draft, setDraft];
}
