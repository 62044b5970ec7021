/** Data: the Refine data provider over the platform's data API, and service metadata. */
export { type DataProviderOptions, frameworkMDataProvider } from './data-provider';
export type {
  DocTypeSchema,
  FieldSchema,
  FieldType,
  ListResponse,
  MenuItem,
  RecordResponse,
  RpcResponse,
  ServiceMetadata,
} from './protocol';
export { type ApiFilter, listQuery, toApiFilters, toLimits, toOrderBy } from './query-params';
export { fetchServiceMetadata } from './service-metadata';
