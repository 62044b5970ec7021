/**
 * The shell's record hooks: list, read, create, update and delete through the platform's data provider, on
 * the shell's QueryClient. They do for the shell what Refine's data hooks do, without Refine: the first
 * screen (a DocType list) then needs no Refine code at all (docs/performance.md#the-first-screen).
 *
 * The query keys are Refine's (`['data', 'default', <resource>, 'list' | 'one', ...]`), so a remote's Refine
 * hooks and these see and invalidate the same cache entries: a record saved by a remote's form refreshes
 * the shell's list, and the other way round.
 */
import type { BaseRecord, CrudFilter, CrudSort, DataProvider } from '@refinedev/core';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { usePlatform } from '../hooks/use-platform';

/** Refine's name for the one data provider the Desk registers. */
const PROVIDER = 'default';

/** What a change to records makes stale (Refine's `invalidates` names). */
export type Invalidation = 'list' | 'many' | 'detail';

/** The cache keys of `resource`'s queries, the same as Refine's. */
export const recordKeys = {
  resource: (resource: string) => ['data', PROVIDER, resource] as const,
  list: (resource: string) => ['data', PROVIDER, resource, 'list'] as const,
  many: (resource: string) => ['data', PROVIDER, resource, 'many'] as const,
  one: (resource: string, id?: string) =>
    id === undefined
      ? (['data', PROVIDER, resource, 'one'] as const)
      : (['data', PROVIDER, resource, 'one', id] as const),
};

/**
 * Marks `resource`'s queries of the given kinds stale (`detail`: record `id`'s, or every record's without an
 * id); those on screen load again.
 */
export function invalidateRecords(
  client: QueryClient,
  resource: string,
  kinds: readonly Invalidation[],
  id?: string,
): Promise<void> {
  const keys = kinds.map((kind): readonly unknown[] =>
    kind === 'list'
      ? recordKeys.list(resource)
      : kind === 'many'
        ? recordKeys.many(resource)
        : recordKeys.one(resource, id),
  );
  return Promise.all(keys.map((queryKey) => client.invalidateQueries({ queryKey }))).then(() => {});
}

/** A function that invalidates a resource's queries (`invalidate({ resource, invalidates, id })`). */
export function useInvalidateRecords(): (args: {
  resource: string;
  invalidates: readonly Invalidation[];
  id?: string;
}) => Promise<void> {
  const client = useQueryClient();
  return ({ resource, invalidates, id }) => invalidateRecords(client, resource, invalidates, id);
}

/** Parameters of {@link useRecordList}. */
export interface RecordListParams {
  resource: string;
  pagination: { currentPage: number; pageSize: number };
  sorters?: CrudSort[];
  filters?: CrudFilter[];
  /**
   * Only these fields of each record (what the list shows): a flagged field not asked for is neither
   * decrypted nor audited as revealed (docs/security.md). All fields when absent.
   */
  fields?: readonly string[];
}

/** One page of `resource`'s records: `result.data` and `result.total`, and the query's state. */
export function useRecordList<T extends BaseRecord>({
  resource,
  pagination,
  sorters,
  filters,
  fields,
}: RecordListParams) {
  const { dataProvider } = usePlatform();
  const page = { ...pagination, mode: 'server' as const };
  const query = useQuery({
    queryKey: [...recordKeys.list(resource), { filters, pagination: page, sorters, fields }],
    queryFn: ({ signal }) =>
      dataProvider.getList<T>({
        resource,
        pagination: page,
        sorters,
        filters,
        meta: fields ? { signal, fields: [...fields] } : { signal },
      }),
  });
  return { query, result: { data: query.data?.data, total: query.data?.total } };
}

/** One record of `resource` (no request while `enabled` is false). */
export function useRecord<T extends BaseRecord>({
  resource,
  id,
  enabled = true,
}: {
  resource: string;
  id: string;
  enabled?: boolean;
}) {
  const { dataProvider } = usePlatform();
  const query = useQuery({
    queryKey: [...recordKeys.one(resource, id), {}],
    queryFn: ({ signal }) => dataProvider.getOne<T>({ resource, id, meta: { signal } }),
    enabled,
  });
  return { query, result: query.data?.data };
}

/** Runs a data-provider call as a mutation that invalidates `kinds` of the resource when it succeeds. */
function useRecordMutation<V extends { resource: string; id?: string }, R>(
  run: (provider: DataProvider, variables: V) => Promise<R>,
  kinds: readonly Invalidation[],
) {
  const { dataProvider } = usePlatform();
  const client = useQueryClient();
  const mutation = useMutation({
    mutationFn: (variables: V) => run(dataProvider, variables),
    onSuccess: (_data, variables) => invalidateRecords(client, variables.resource, kinds, variables.id),
  });
  return { mutateAsync: mutation.mutateAsync, mutation };
}

/** Record payload and metadata of a create or update (`meta.schema` encrypts flagged fields). */
interface WriteVariables {
  resource: string;
  values: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

/** Creates a record; the resource's lists and "many" queries go stale. */
export function useCreateRecord<T extends BaseRecord>() {
  return useRecordMutation(
    (provider, { resource, values, meta }: WriteVariables) =>
      provider.create<T, Record<string, unknown>>({ resource, variables: values, meta }),
    ['list', 'many'],
  );
}

/** Updates a record; its detail query, the lists and "many" queries go stale. */
export function useUpdateRecord<T extends BaseRecord>() {
  return useRecordMutation(
    (provider, { resource, id, values, meta }: WriteVariables & { id: string }) =>
      provider.update<T, Record<string, unknown>>({ resource, id, variables: values, meta }),
    ['list', 'many', 'detail'],
  );
}

/** Deletes one record; the resource's lists and "many" queries go stale. */
export function useDeleteRecord() {
  return useRecordMutation(
    (provider, { resource, id }: { resource: string; id: string }) => provider.deleteOne({ resource, id }),
    ['list', 'many'],
  );
}

/**
 * Deletes several records, one request each (the data provider has no bulk delete); rejects when any
 * failed, after all were tried. The lists go stale either way (the caller invalidates after a failure).
 */
export function useDeleteRecords() {
  return useRecordMutation(
    async (provider, { resource, ids }: { resource: string; ids: string[] }) => {
      const outcomes = await Promise.allSettled(ids.map((id) => provider.deleteOne({ resource, id })));
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
    },
    ['list', 'many'],
  );
}
