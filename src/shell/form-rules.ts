/**
 * The generic form's rules against silent loss: which fields the user changed (a changed form warns before
 * it is left), the Save shortcut, the error of a Link whose text names no record, and the fields in which
 * the user's version and the one saved meanwhile by someone else differ (docs/http-api.md#conflicts).
 */
import type { DeskField } from './fields';
import { isBlank } from './validation';

/** Two form values as the user sees them: blank is blank, numbers and their text are the same. */
export function sameValue(a: unknown, b: unknown): boolean {
  // An unticked box and a field never set look the same.
  if (typeof a === 'boolean' || typeof b === 'boolean') return Boolean(a) === Boolean(b);
  if (isBlank(a) && isBlank(b)) return true;
  if (isBlank(a) || isBlank(b)) return false;
  return String(a).trim() === String(b).trim();
}

/** Names of the fields whose value in `values` differs from `baseline` (the record as loaded or saved). */
export function changedFields(
  fields: readonly DeskField[],
  baseline: Record<string, unknown>,
  values: Record<string, unknown>,
): string[] {
  return fields.filter((f) => !sameValue(baseline[f.name], values[f.name])).map((f) => f.name);
}

/** True for Ctrl+S, or ⌘S on a Mac: the shortcut that saves the open form. */
export function isSaveShortcut(
  event: Pick<KeyboardEvent, 'ctrlKey' | 'metaKey' | 'altKey' | 'key'>,
): boolean {
  return (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's';
}

/** The inline error of a Link field whose input holds `text` that names no record. */
export function unmatchedLinkMessage(field: Pick<DeskField, 'label'>, text: string): string {
  return `No record matches “${text}”. Pick one from the list, or clear ${field.label}.`;
}

/** One field of a conflict: the user's value and the one stored meanwhile. */
export interface ConflictRow {
  field: DeskField;
  mine: unknown;
  theirs: unknown;
}

/** The fields in which the user's values and the newer stored record differ. */
export function conflictRows(
  fields: readonly DeskField[],
  mine: Record<string, unknown>,
  theirs: Record<string, unknown>,
): ConflictRow[] {
  return fields
    .filter((f) => !sameValue(mine[f.name], theirs[f.name]))
    .map((field) => ({ field, mine: mine[field.name], theirs: theirs[field.name] }));
}
