/**
 * `frameworkMDataProvider`: a Refine 5 DataProvider over the platform's data API
 * (docs/http-api.md#doctype-data-api-and-rpc). Each resource is a full DocType name (`crm.Customer`); its
 * owner comes from the DiscoveryClient and the requests go to that owner's `apiUrl` with
 * `X-Platform-Service: <owner>` (deterministic routing). create/update pass `meta.schema` to
 * `fetchWithCredentials` so flagged fields are encrypted (docs/sdk.md#data-provider-and-remotes); without one,
 * the DocType's schema from its owner's metadata; of Refine's `meta`, only `schema`, `fields`, `service` and
 * `signal` are read and nothing is forwarded.
 */
import type {
  BaseKey,
  BaseRecord,
  CustomParams,
  DataProvider,
  GetListParams,
  MetaQuery,
} from '@refinedev/core';
import type {
  FlaggedSchema,
  ListResponse,
  RecordResponse,
  RpcResponse,
  ServiceMetadata,
} from '../../protocol';
import { DiscoveryClient } from '../discovery/discovery-client';
import { SdkError } from '../errors';
import { httpClient } from '../http/default-client';
import type { HttpClient } from '../http/http-client';
import { listQuery } from './query-params';
import { fetchServiceMetadata } from './service-metadata';

/** Options of {@link frameworkMDataProvider}. */
export interface DataProviderOptions {
  /** Discovery client; default the shared `DiscoveryClient.get_instance()`, looked up on each call. */
  discovery?: DiscoveryClient;
  /** HTTP client; default the shared one behind `fetchWithCredentials`. */
  http?: HttpClient;
  /** API base used when discovery knows no owner (e.g. `/api` in a monolith); default: fail `unknown_resource`. */
  fallbackApiUrl?: string;
  /** Record field that identifies a record in URLs; default `name` (records also get `id` when they lack one). */
  idField?: string;
}

interface Target {
  apiUrl: string;
  service?: string;
}

function signalOf(meta: MetaQuery | undefined): AbortSignal | undefined {
  return (meta?.signal as AbortSignal | undefined) ?? (meta?.queryContext?.signal as AbortSignal | undefined);
}

function schemaOf(meta: MetaQuery | undefined): FlaggedSchema | undefined {
  const schema = meta?.schema as FlaggedSchema | undefined;
  return schema && Array.isArray(schema.fields) ? schema : undefined;
}

function fieldsOf(meta: MetaQuery | undefined): string[] | undefined {
  const fields = meta?.fields;
  return Array.isArray(fields) && fields.every((f) => typeof f === 'string')
    ? (fields as string[])
    : undefined;
}

const trim = (url: string) => url.replace(/\/+$/, '');

/**
 * Creates the data provider.
 *
 * @example
 * <Refine dataProvider={frameworkMDataProvider({ fallbackApiUrl: '/api' })} resources={[{ name: 'crm.Customer' }]} />
 * // in a form: useCreate().mutate({ resource: 'crm.Customer', values, meta: { schema: customerSchema } })
 */
export function frameworkMDataProvider(options: DataProviderOptions = {}): DataProvider {
  const idField = options.idField ?? 'name';
  const discovery = () => options.discovery ?? DiscoveryClient.get_instance();
  const http = () => options.http ?? httpClient;

  const withId = <T>(record: T): T => {
    if (record && typeof record === 'object' && !('id' in record) && idField in record) {
      return { id: (record as Record<string, unknown>)[idField], ...record };
    }
    return record;
  };

  // The `id` this provider adds to records is not a DocType field: the API would refuse it as unknown.
  const withoutId = (body: unknown) => {
    if (idField === 'id' || typeof body !== 'object' || body === null || !('id' in body)) return body;
    const { id: _id, ...rest } = body as Record<string, unknown>;
    return rest;
  };

  async function serviceTarget(service: string): Promise<Target> {
    const client = discovery();
    try {
      const manifest = client.getManifest(service) ?? (await client.loadManifest(service));
      return { apiUrl: trim(manifest.apiUrl), service };
    } catch (err) {
      if (options.fallbackApiUrl !== undefined) return { apiUrl: trim(options.fallbackApiUrl), service };
      throw err;
    }
  }

  async function resourceTarget(resource: string): Promise<Target> {
    const owner = await discovery().resolve(resource);
    if (owner !== null) return serviceTarget(owner);
    if (options.fallbackApiUrl !== undefined) return { apiUrl: trim(options.fallbackApiUrl) };
    throw new SdkError('unknown_resource', `No service owns the resource "${resource}".`);
  }

  // A write given no `meta.schema` would go out as JSON, personal data in clear, only for the server to
  // refuse it (415 `encryption_required`): its DocType's flags come from the owner's metadata instead, read
  // once per revision of the service's manifest (a changed DocType is a new revision).
  const metadata = new Map<string, Promise<ServiceMetadata | undefined>>();
  async function ownerSchema(target: Target, resource: string): Promise<FlaggedSchema | undefined> {
    const manifest = target.service === undefined ? undefined : discovery().getManifest(target.service);
    if (!manifest?.metaUrl) return undefined;
    const key = `${manifest.metaUrl} ${manifest.rev}`;
    let meta = metadata.get(key);
    if (!meta) {
      // Unreadable metadata leaves the write as it was (the server still refuses flagged fields in clear).
      meta = fetchServiceMetadata(manifest.metaUrl, { http: http() }).catch(() => {
        metadata.delete(key);
        return undefined;
      });
      metadata.set(key, meta);
    }
    return (await meta)?.doctypes.find((d) => d.name === resource);
  }

  const resourceUrl = (target: Target, resource: string, id?: BaseKey) =>
    `${target.apiUrl}/resource/${encodeURIComponent(resource)}${id === undefined ? '' : `/${encodeURIComponent(String(id))}`}`;

  async function list<T>(params: GetListParams) {
    const target = await resourceTarget(params.resource);
    const answer = await http().fetch<ListResponse<T>>(resourceUrl(target, params.resource), {
      service: target.service,
      signal: signalOf(params.meta),
      query: listQuery({ ...params, fields: fieldsOf(params.meta) }),
    });
    const data = (answer?.data ?? []).map(withId);
    const total = typeof answer?.total === 'number' ? answer.total : data.length;
    // Passed on as the server says it: "at least `total`" (the Desk shows "1,000+").
    return answer?.total_is_lower_bound === true
      ? { data, total, total_is_lower_bound: true }
      : { data, total };
  }

  async function one<T>(
    method: string,
    resource: string,
    id: BaseKey | undefined,
    meta: MetaQuery | undefined,
    body?: unknown,
  ) {
    const target = await resourceTarget(resource);
    const schema = body === undefined ? undefined : (schemaOf(meta) ?? (await ownerSchema(target, resource)));
    const answer = await http().fetch<RecordResponse<T>>(
      resourceUrl(target, resource, id),
      { method, body: withoutId(body), service: target.service, signal: signalOf(meta) },
      schema,
    );
    return { data: withId(answer?.data as T) };
  }

  async function custom<T>(params: CustomParams) {
    const meta = params.meta;
    const isUrl = /^(?:[a-z][a-z0-9+.-]*:|\/)/i.test(params.url);
    if (isUrl) {
      const answer = await http().fetch<T>(
        params.url,
        {
          method: params.method,
          body: params.payload,
          headers: params.headers as Record<string, string> | undefined,
          query: params.query as Record<string, string> | undefined,
          service: meta?.service as string | undefined,
          signal: signalOf(meta),
        },
        schemaOf(meta),
      );
      return { data: answer };
    }
    // A dotted RPC name (`crm.api.ping`): its first segment is the owning app
    // (docs/http-api.md#doctype-data-api-and-rpc).
    const service = (meta?.service as string | undefined) ?? params.url.split('.')[0]!;
    const target = await serviceTarget(service);
    const answer = await http().fetch<RpcResponse<T>>(
      `${target.apiUrl}/method/${encodeURIComponent(params.url)}`,
      { method: 'POST', body: params.payload ?? {}, service, signal: signalOf(meta) },
      schemaOf(meta),
    );
    return { data: answer?.message as T };
  }

  return {
    getApiUrl: () => options.fallbackApiUrl ?? '/api',
    getList: (params) => list(params),
    getOne: (params) => one('GET', params.resource, params.id, params.meta),
    async getMany(params) {
      const { data } = await list<BaseRecord>({
        resource: params.resource,
        filters: [{ field: idField, operator: 'in', value: params.ids }],
        pagination: { currentPage: 1, pageSize: Math.max(1, params.ids.length), mode: 'server' },
        meta: params.meta,
      });
      return { data } as never;
    },
    create: (params) => one('POST', params.resource, undefined, params.meta, params.variables ?? {}) as never,
    update: (params) => one('PUT', params.resource, params.id, params.meta, params.variables ?? {}) as never,
    deleteOne: (params) => one('DELETE', params.resource, params.id, params.meta) as never,
    custom: (params) => custom(params) as never,
  };
}
