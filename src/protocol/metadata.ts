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
  /** The app's name for people, e.g. `CRM`; absent from older services. */
  label?: string;
  doctypes: DocTypeSchema[];
  menus: MenuItem[];
}

/** `GET <apiUrl>/resource/<DocType>` response: one page of records plus the total matching the filters. */
export interface ListResponse<T = Record<string, unknown>> {
  data: T[];
  total: number;
  /**
   * Present when the server counted only up to `total` and more records match (an unfiltered list of a
   * large DocType; docs/http-api.md#list-parameters).
   */
  total_is_lower_bound?: true;
}

/** Single-record responses of get / create / update / delete. */
export interface RecordResponse<T = Record<string, unknown>> {
  data: T;
}

/** `POST <apiUrl>/method/<dotted.name>` response. */
export interface RpcResponse<T = unknown> {
  message: T;
}
