/**
 * What a service's UI remote exposes to the Desk (docs/mfe-teams.md#writing-a-ui-remote). Types only: a
 * remote imports them with `import type`, so nothing of the shell ends up in its bundle.
 *
 * A remote exposes ONE module, `./views`, whose default export is a {@link RemoteViews}: per DocType the
 * views that replace the Desk's generic ones, and dashboard widgets. It may expose more modules (e.g.
 * `./CustomerForm`) for other hosts; the Desk only reads `./views`.
 *
 * @example
 * import { defineRemote } from '@framework-m/desk/remote';
 * export default defineRemote({ views: { 'crm.Customer': { form: CustomerForm } } });
 */
import type { ComponentType } from 'react';
import type { DocTypeSchema } from '../protocol';
import type { Operation } from './permissions';

/** Sort of a list: a field and a direction. */
export interface ListSort {
  field: string;
  order: 'asc' | 'desc';
}

/**
 * The operators of a list condition: equals, not equals, contains, is set, the four comparisons, is one of.
 * Which a field offers depends on its type (docs/desk.md#filters).
 */
export type ListConditionOp = 'eq' | 'ne' | 'like' | 'set' | 'lt' | 'lte' | 'gt' | 'gte' | 'in';

/** One condition of a list's filter builder: `field op value` (`value` is a list for `in`, empty for `set`). */
export interface ListCondition {
  field: string;
  op: ListConditionOp;
  value: string | string[];
}

/** What a list shows: its search text, per-field filters, conditions, columns, sort and page. */
export interface ListState {
  /** Free text matched against the record title. */
  q?: string;
  /** Field name -> filter text (or exact option). */
  filters: Record<string, string>;
  /** Conditions built with the filter builder, all of which a record matches (AND); undefined when none were set. */
  conditions?: ListCondition[];
  /** The fields shown as columns, in order; undefined for the DocType's default columns. */
  columns?: string[];
  sort?: ListSort;
  /** 1-based page number. */
  page: number;
  pageSize: number;
}

/** The exposed module the Desk loads from every remote. */
export const VIEWS_MODULE = './views';

/** A record as the data API returns it; `name` is its id. */
export type DeskRecord = Record<string, unknown> & { name?: string };

/** Props of a form view (create when `id` is undefined, else edit). */
export interface FormViewProps {
  /** Full DocType name, e.g. `crm.Customer`. */
  docType: string;
  /** The DocType's metadata: pass it as `meta: { schema }` to create/update so flagged fields get encrypted. */
  schema: DocTypeSchema;
  /** Record id when editing. */
  id?: string;
  /** Call after a successful save with the stored record. */
  onSaved(record: DeskRecord): void;
  /** Call when the user leaves without saving. */
  onCancel(): void;
  /**
   * Registers the form's unsaved edits with the Desk, as its own forms do: while `isDirty()` is true, leaving
   * the form (a link, the Back button) asks the user to Save, Discard or Stay, closing the tab asks the
   * browser's question, and Ctrl+S (⌘S) calls `save`. Returns the function that removes the guard; call it
   * when the form unmounts. Optional: a Desk older than this contract passes none, so check before calling.
   */
  guardLeave?(guard: FormLeaveGuard): () => void;
}

/** What a form registers through {@link FormViewProps.guardLeave}. */
export interface FormLeaveGuard {
  /** True while there are edits the user would lose. */
  isDirty(): boolean;
  /** Saves the edits; resolves true when they were stored (false: the form shows why not). */
  save(): Promise<boolean>;
}

/** Props of a list view. */
export interface ListViewProps {
  docType: string;
  schema: DocTypeSchema;
  /** Open a record's form. */
  onOpen(id: string): void;
  /** Open an empty form. */
  onCreate(): void;
  /**
   * The list's search, filters, sort and page as the URL has them; a view that supports them calls
   * `onStateChange` on every change so a reload or a shared link shows the same page. Optional: a view may
   * keep its own state.
   */
  state?: ListState;
  onStateChange?(state: ListState): void;
}

/**
 * What the Desk tells a remote's widgets and views about the signed-in user's rights, so they offer only
 * what the user may do (docs/permissions.md#who-am-i). The Desk always passes it: a remote that ignores it
 * still works, but then offers actions the server refuses.
 */
export interface RightsProps {
  /**
   * True when the signed-in user may perform `operation` on `doctype` (a full DocType name, e.g.
   * `crm.Customer`). Answered from the permissions the Desk already holds for the session, without a
   * request; false while they are not known yet and after sign-out. It only decides what to offer: the
   * server checks every request either way.
   */
  can(operation: Operation, doctype: string): boolean;
}

/**
 * Where a remote's dialogs, popovers and toasts render when they leave the view's own element
 * (docs/mfe-teams.md#dialogs-popovers-and-toasts-of-a-remote). The Desk always passes it to views and widgets.
 */
export interface PortalProps {
  /**
   * The remote's portal container: an element covering the viewport above the Desk, styled by the remote's
   * own stylesheet like its views. Pass it as `createPortal(dialog, portalContainer)`, or as a UI library's
   * portal container option. Only its children take pointer events. Portals a remote puts into
   * `document.body` are moved into it too; passing it is the sure way.
   */
  portalContainer: HTMLElement;
}

/**
 * Views replacing the generic ones for one DocType; a missing entry keeps the generic view. The Desk passes
 * a view {@link RightsProps} and {@link PortalProps} besides its props: a view that asks type its props
 * `FormViewProps & RightsProps` (or `ListViewProps & RightsProps & PortalProps`); one typed with
 * `FormViewProps` alone still fits.
 */
export interface DocTypeViews {
  form?: ComponentType<FormViewProps & RightsProps & PortalProps>;
  list?: ComponentType<ListViewProps & RightsProps & PortalProps>;
}

/**
 * Props of a dashboard widget, including {@link RightsProps.can} for what the signed-in user may do and
 * {@link PortalProps.portalContainer} for its dialogs.
 */
export interface WidgetProps extends RightsProps, PortalProps {
  /** The service that owns the widget. */
  service: string;
  /** The service's data API base (`<apiUrl>/method/<name>` for RPC). */
  apiUrl: string;
}

/** A card on the Desk's home page. */
export interface DeskWidget {
  /** Stable id, unique within the remote. */
  id: string;
  title: string;
  component: ComponentType<WidgetProps>;
}

/** Default export of a remote's `./views` module. */
export interface RemoteViews {
  /** DocType full name -> replacement views. */
  views?: Record<string, DocTypeViews>;
  widgets?: DeskWidget[];
}
