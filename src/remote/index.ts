/**
 * The contract a UI remote implements (`@framework-m/desk/remote`), for teams building a remote outside this
 * repository: the props the Desk passes to its views and widgets, {@link defineRemote} for the `./views`
 * module, and the data hooks a remote may use.
 *
 * The hooks are Refine's, bound at run time to the Desk's own data provider and query cache: `react`,
 * `react-dom`, `@tanstack/react-query` and `@refinedev/core` are shared singletons (see
 * `@framework-m/desk/webpack`), so a remote never brings its own copies. Pass `meta: { schema }` to
 * `useCreate`/`useUpdate` so flagged fields are encrypted in the browser.
 *
 * @example
 * import { defineRemote } from '@framework-m/desk/remote';
 * export default defineRemote({ views: { 'notes.Note': { form: NoteForm } }, widgets: [] });
 */

export type { Operation } from '../contract/permissions';
export type {
  DeskRecord,
  DeskWidget,
  DocTypeViews,
  FormLeaveGuard,
  FormViewProps,
  ListViewProps,
  PortalProps,
  RemoteViews,
  RightsProps,
  WidgetProps,
} from '../contract/remote';
export { VIEWS_MODULE } from '../contract/remote';
export type { DocTypeSchema } from '../protocol';
/** What a reader without `read_pii` sees in place of a personal-data value (docs/permissions.md). */
export { PII_MASK } from '../protocol';
/** The Desk's words for a failure: what happened and what to do, for a remote's own error messages. */
export { type FailureWords, failureWords } from '../shell/words/failure';
export { defineRemote } from './define-remote';
export { useCreate, useCustom, useDelete, useInvalidate, useList, useOne, useUpdate } from './hooks';
