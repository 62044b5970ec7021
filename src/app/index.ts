/**
 * The app-authoring API (`@framework-m/desk/app`): what a team's app module imports to declare its DocTypes,
 * RPC methods, menus and permission rules. An app module's default export is the result of
 * {@link defineApp}; the platform installs it by name (a built-in app) or by path (`m serve --app ./my-app`,
 * `tool.platform.apps`). The declarations live in the platform's contract (`@framework-m/desk/contract`);
 * this entry is the part of it an app module needs.
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
 * export const noteCount = defineRpcMethod({
 *   description: 'Number of notes', roles: ['Notes User'], kwargs: z.object({}),
 *   handler: ({ records }) => records.count(Note.name),
 * });
 * export default defineApp({
 *   name: 'notes', label: 'Notes', doctypes: [Note], methods: { 'notes.api.note_count': noteCount },
 *   permissions: { [Note.name]: [{ role: 'Notes User', read: true, create: true, write: true }] },
 * });
 */
export { z } from 'zod';
export type {
  AppDefinition,
  AppRecords,
  AppServices,
  CreateBodyOf,
  DefinedApp,
  DocRecord,
  DocTypeDefinition,
  FieldMeta,
  FieldType,
  Operation,
  PermissionRule,
  Principal,
  RecordOf,
  RpcCall,
  RpcMethod,
  UpdateBodyOf,
} from '../contract';
export {
  APP_NAME_PATTERN,
  countRecords,
  defineApp,
  defineDocType,
  defineRpcMethod,
  FIELD_FLAGS,
  isDefinedApp,
  PlatformError,
  SYSTEM_MANAGER,
} from '../contract';
