/**
 * The platform's contract with the code teams write (`@framework-m/desk/contract`): what an app declares
 * (`AppDefinition`, DocTypes, RPC methods, permission rules), what app code is given (`AppServices`), the
 * views a UI remote exposes to the Desk, the `__PLATFORM_CONFIG__` payload, and the base error. The backend
 * implements it; the SDK, the shell, `@framework-m/desk/app` and `/remote` and every app build on it.
 *
 * Environment-agnostic and free of the platform's implementation: it imports only the wire contract
 * (`@framework-m/desk/protocol`), zod (DocType models) and React's types (remote views).
 */

export type { AppDefinition, DefinedApp, InstalledApp } from './app';
export { APP_NAME_PATTERN, defineApp, FIELD_FLAGS, isDefinedApp } from './app';
export type { AppServices } from './app-services';
export type { Logger, Principal } from './caller';
export type { DocTypeDefinition, DocTypeField, FieldMeta, FieldType } from './doctype';
export { DOCTYPE_NAME_PATTERN, defineDocType } from './doctype';
export type { PlatformErrorOptions } from './errors';
export { PlatformError } from './errors';
export type { Operation, PermissionRule } from './permissions';
export { OPERATIONS, ROLE_NAME_PATTERN, SYSTEM_MANAGER } from './permissions';
export type { PlatformConfigPayload, PlatformMode } from './platform-config';
export { PLATFORM_MODES } from './platform-config';
export type {
  AppRecords,
  CreateBodyOf,
  DocRecord,
  RecordOf,
  SumOptions,
  UpdateBodyOf,
} from './records';
export { countRecords } from './records';
export type {
  DeskRecord,
  DeskWidget,
  DocTypeViews,
  FormLeaveGuard,
  FormViewProps,
  ListCondition,
  ListConditionOp,
  ListSort,
  ListState,
  ListViewProps,
  PortalProps,
  RemoteViews,
  RightsProps,
  WidgetProps,
} from './remote';
export { VIEWS_MODULE } from './remote';
export type { RpcCall, RpcMethod } from './rpc';
export { defineRpcMethod } from './rpc';
