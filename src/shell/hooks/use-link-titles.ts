import { useQueries } from '@tanstack/react-query';
import type { DeskRecord } from '../../contract/remote';
import type { DeskField } from '../fields';
import { linkTarget } from '../fields';
import { useDocTypeSchemas } from './use-doc-type-schemas';
import { usePlatform } from './use-platform';

/** Record id -> title, per target DocType. */
export type LinkTitles = Record<string, Record<string, string>>;

/**
 * The titles of the records that `rows` link to through `fields`: one list request per target DocType
 * (`name in [...]`), sent to whichever service owns the target.
 */
export function useLinkTitles(fields: readonly DeskField[], rows: readonly DeskRecord[]): LinkTitles {
  const { dataProvider } = usePlatform();
  const wanted = new Map<string, Set<string>>();
  for (const field of fields) {
    const target = linkTarget(field);
    if (!target) continue;
    const names = wanted.get(target) ?? new Set<string>();
    for (const row of rows) {
      const value = row[field.name];
      if (typeof value === 'string' && value) names.add(value);
    }
    wanted.set(target, names);
  }
  const targets = [...wanted.keys()].sort();
  const schemas = useDocTypeSchemas(targets);
  const results = useQueries({
    queries: targets.map((target) => {
      const names = [...(wanted.get(target) ?? [])].sort();
      const titleField = schemas[target]?.titleField;
      return {
        queryKey: ['desk-link-titles', target, titleField, names],
        enabled: names.length > 0 && titleField !== undefined,
        staleTime: 30_000,
        queryFn: async ({ signal }: { signal: AbortSignal }) => {
          const { data } = await dataProvider.getList({
            resource: target,
            filters: [{ field: 'name', operator: 'in', value: names }],
            pagination: { currentPage: 1, pageSize: names.length, mode: 'server' },
            meta: { fields: ['name', titleField], signal },
          });
          const titles: Record<string, string> = {};
          for (const row of data as Array<Record<string, unknown>>) {
            const title = row[titleField!];
            titles[String(row.name)] = typeof title === 'string' && title ? title : String(row.name);
          }
          return titles;
        },
      };
    }),
  });
  const out: LinkTitles = {};
  targets.forEach((target, i) => {
    out[target] = results[i]?.data ?? {};
  });
  return out;
}
