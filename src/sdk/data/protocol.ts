/** Wire types of a service's metadata endpoint (its `metaUrl`) and data API, shared by backend and SDK. */

export type FieldType =
  | 'string'
  | 'text'
  | 'email'
  | 'phone'
  | 'int'
  | 'float'
  | 'currency'
  | 'select'
  | 'boolean'
  | 'date';

/** One DocType field. `encrypted` / `pii` are the field flags of docs/security.md#field-flags. */
export interface FieldSchema {
  name: string;
  type: FieldType;
  label: string;
  required: boolean;
  options?: string[];
  encrypted?: boolean;
  pii?: boolean;
  inList?: boolean;
}

/** A DocType's schema: what `meta.schema` carries into `encryptPayload`. */
export interface DocTypeSchema {
  name: string;
  app: string;
  label: string;
  titleField: string;
  fields: FieldSchema[];
}

/** A menu entry of a service. */
export interface MenuItem {
  label: string;
  doctype: string;
}

/** `GET <metaUrl>`. */
export interface ServiceMetadata {
  service: string;
  doctypes: DocTypeSchema[];
  menus: MenuItem[];
}

/** `GET <apiUrl>/resource/<DocType>` response: one page of records plus the total matching the filters. */
export interface ListResponse<T = Record<string, unknown>> {
  data: T[];
  total: number;
}

/** Single-record responses of get / create / update / delete. */
export interface RecordResponse<T = Record<string, unknown>> {
  data: T;
}

/** `POST <apiUrl>/method/<dotted.name>` response. */
export interface RpcResponse<T = unknown> {
  message: T;
}
