/** Data: the Refine data provider over the platform's data API, and service metadata. */

export type {
  DocTypeSchema,
  FieldSchema,
  FieldType,
  ListResponse,
  MenuItem,
  RecordResponse,
  RpcResponse,
  ServiceMetadata,
} from '../../protocol';
export type { DataProviderOptions } from './data-provider';
export { frameworkMDataProvider } from './data-provider';
export type { ApiFilter } from './query-params';
export { listQuery, MAX_PAGE_LENGTH, toApiFilters, toLimits, toOrderBy } from './query-params';
export { fetchServiceMetadata } from './service-metadata';
