/**
 * The app-authoring API (`@framework-m/desk/app`): what a team's app module imports to declare its DocTypes,
 * RPC methods and menus. An app module's default export is the result of {@link defineApp}; the platform
 * installs it by name (a built-in app) or by path (`m serve --app ./my-app`, `tool.platform.apps`).
 *
 * `z` is the platform's own zod, re-exported so a team's models and the platform's validation share one copy
 * (a second zod would make `instanceof` checks in the field derivation fail).
 *
 * @example
 * import { defineApp, defineDocType, defineRpcMethod, z } from '@framework-m/desk/app';
 * export const Note = defineDocType({
 *   name: 'notes.Note', label: 'Note', titleField: 'title',
 *   model: z.object({ title: z.string().min(1).meta({ inList: true }), email: z.email().meta({ pii: true }).optional() }),
 * });
 * export default defineApp({ name: 'notes', label: 'Notes', doctypes: [Note] });
 */
export { z } from 'zod';
export type { RpcCall, RpcMethod } from '../../backend/apps/types';
export { defineRpcMethod } from '../../backend/apps/types';
export type { FieldMeta, FieldType } from '../../backend/doctypes/define-doctype';
export { defineDocType } from '../../backend/doctypes/define-doctype';
export type { AppDefinition, DefinedApp } from './define-app';
export { APP_NAME_PATTERN, defineApp, FIELD_FLAGS, isDefinedApp } from './define-app';
export type { CreateBodyOf, RecordOf, UpdateBodyOf } from './records';
export { countRecords } from './records';
