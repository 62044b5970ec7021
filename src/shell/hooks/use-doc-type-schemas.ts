import { useEffect } from 'react';
import type { DocTypeSchema } from '../../protocol';
import { useCatalog } from './use-catalog';
import { usePlatform } from './use-platform';

/**
 * The schemas of several DocTypes, whichever services own them (see `useDocTypeSchema`): DocType -> schema,
 * for the ones known so far; the others load in the background.
 */
export function useDocTypeSchemas(docTypes: readonly string[]): Record<string, DocTypeSchema> {
  const platform = usePlatform();
  const snapshot = useCatalog();
  const found: Record<string, DocTypeSchema> = {};
  for (const state of Object.values(snapshot.metadata)) {
    if (state.status !== 'ready') continue;
    for (const schema of state.value.doctypes)
      if (docTypes.includes(schema.name)) found[schema.name] = schema;
  }
  const missing = docTypes.filter((d) => !found[d]).join('\n');

  useEffect(() => {
    if (!missing) return;
    for (const docType of missing.split('\n')) {
      platform.discovery
        .resolve(docType)
        .then(async (owner) => {
          if (!owner) return;
          const entry = platform.catalog.getSnapshot().services[owner];
          if (entry) await platform.catalog.addService(entry);
          else await platform.catalog.addManifest(await platform.discovery.loadManifest(owner));
        })
        .catch(() => {});
    }
  }, [platform, missing]);

  return found;
}
