/**
 * A list's conditions and columns, remembered per user and DocType in the browser's `localStorage`: a list
 * opened without them in its URL shows the ones its user last chose there. The URL wins when it names them,
 * so a shared link shows what it says.
 */
import { useEffect } from 'react';
import { formatCondition, type ListCondition, type ListState, parseCondition } from '../../routing/route';

/** What is remembered of one list. */
export interface RememberedList {
  conditions?: ListCondition[];
  columns?: string[];
}

/** The storage key of `user`'s list of `docType`. */
export function listMemoryKey(user: string, docType: string): string {
  return `desk.list:${user}:${docType}`;
}

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    // Storage refused (a sandboxed frame): nothing is remembered.
    return undefined;
  }
}

/** What `user` last chose on the list of `docType`; empty when nothing (or something unreadable) is stored. */
export function loadRememberedList(user: string, docType: string): RememberedList {
  try {
    const raw = storage()?.getItem(listMemoryKey(user, docType));
    if (!raw) return {};
    const parsed = JSON.parse(raw) as { conditions?: unknown; columns?: unknown };
    const conditions = Array.isArray(parsed.conditions)
      ? parsed.conditions.flatMap((c) => {
          const condition = typeof c === 'string' ? parseCondition(c) : undefined;
          return condition ? [condition] : [];
        })
      : [];
    const columns = Array.isArray(parsed.columns)
      ? parsed.columns.filter((c): c is string => typeof c === 'string')
      : [];
    return {
      conditions: conditions.length > 0 ? conditions : undefined,
      columns: columns.length > 0 ? columns : undefined,
    };
  } catch {
    return {};
  }
}

/**
 * Remembers `state`'s conditions and columns for `user`'s list of `docType` (none: forgets them). Conditions
 * on the `sensitive` fields (personal or encrypted data) are not kept: their values would outlive the session
 * in the browser's storage.
 */
export function rememberList(
  user: string,
  docType: string,
  state: RememberedList,
  sensitive: readonly string[] = [],
): void {
  const conditions = (state.conditions ?? []).filter((c) => !sensitive.includes(c.field));
  const columns = state.columns ?? [];
  try {
    const store = storage();
    if (conditions.length === 0 && columns.length === 0) store?.removeItem(listMemoryKey(user, docType));
    else {
      // Conditions are kept in their URL form, so the one parser checks both.
      store?.setItem(
        listMemoryKey(user, docType),
        JSON.stringify({ conditions: conditions.map(formatCondition), columns }),
      );
    }
  } catch {
    // Storage full or refused: the list still works, it is only not remembered.
  }
}

/**
 * The list's state with what `user` remembered for `docType` filling in what the URL leaves out, and a
 * setter that remembers each change. A remembered part is also written into the URL (replacing it), so the
 * address shows what the list shows. Without a user (not known yet) nothing is remembered, and conditions on
 * the `sensitive` fields never are.
 */
export function useRememberedListState(
  user: string | undefined,
  docType: string,
  state: ListState,
  setState: (state: ListState) => void,
  sensitive: readonly string[] = [],
): [ListState, (state: ListState) => void] {
  const remembered = user ? loadRememberedList(user, docType) : {};
  const effective: ListState = {
    ...state,
    conditions: state.conditions ?? remembered.conditions,
    columns: state.columns ?? remembered.columns,
  };
  const filled = effective.conditions !== state.conditions || effective.columns !== state.columns;
  // biome-ignore lint/correctness/useExhaustiveDependencies: written once the remembered parts are known
  useEffect(() => {
    if (filled) setState(effective);
  }, [filled, user, docType]);
  const set = (next: ListState) => {
    if (user) rememberList(user, docType, next, sensitive);
    setState(next);
  };
  return [effective, set];
}
