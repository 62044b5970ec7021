/**
 * What each screen offers the signed-in user, decided from their effective permissions
 * (docs/permissions.md#who-am-i). These rules only hide what the server would refuse; the server enforces
 * every one of them either way. A screen never offers an action before it knows the user may take it.
 */
import type { DeskOperation } from './permissions';

/** Answers whether the user may perform `operation` on `docType` (false while unknown). */
export type Can = (docType: string, operation: DeskOperation) => boolean;

/** How a record's form is shown: with inputs and Save, or as read-only values without Save. */
export type FormMode = 'editable' | 'read-only';

/**
 * A new record needs `create`; an existing one needs `write`. Anything else (including permissions not
 * known yet) is read-only, so a Save that could only end in "You may not write" is never offered.
 */
export function formMode(can: Can, docType: string, editing: boolean): FormMode {
  return can(docType, editing ? 'write' : 'create') ? 'editable' : 'read-only';
}

/** The actions a list offers: New needs `create`; selecting rows (for bulk Delete) needs `delete`. */
export function listActions(can: Can, docType: string): { create: boolean; select: boolean } {
  return { create: can(docType, 'create'), select: can(docType, 'delete') };
}

/**
 * True when a service's home widgets and cards are shown: the user may read at least one of its DocTypes.
 * A service whose DocTypes are not known yet is shown only once they are (its widgets would otherwise ask
 * for data the user may be refused).
 */
export function showsService(can: Can, docTypes: readonly string[] | undefined): boolean {
  return docTypes?.some((docType) => can(docType, 'read')) === true;
}

/** A command of the Ctrl+K palette that leads to a DocType. */
export interface PaletteCommand {
  kind: 'go' | 'new';
  docType: string;
}

/** The palette offers "Go to" a list only to readers of it, and "New" only to those who may create. */
export function allowsCommand(can: Can, command: PaletteCommand): boolean {
  return can(command.docType, command.kind === 'go' ? 'read' : 'create');
}

/** The role whose members see the Desk's developer details (deployment, services, error codes). */
export const DEVELOPER_DETAILS_ROLES: readonly string[] = ['System Manager'];

/** True when a user holding `roles` may switch the developer details on. */
export function mayShowDeveloperDetails(roles: readonly string[]): boolean {
  return roles.some((role) => DEVELOPER_DETAILS_ROLES.includes(role));
}
