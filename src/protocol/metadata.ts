/** Wire types of a service's metadata endpoint (its `metaUrl`) and its data API. Types only. */
import type { DocTypeSchema } from './doctype-schema';

/** A menu entry of a service. */
export interface MenuItem {
  label: string;
  doctype: string;
}

/** `GET <metaUrl>`: the DocTypes and menus a service publishes. */
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
