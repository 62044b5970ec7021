import { useSyncExternalStore } from 'react';
import type { CatalogSnapshot } from '../platform/catalog';
import { usePlatform } from './use-platform';

/** The catalog of services and DocType metadata (sidebar, DocType screens). */
export function useCatalog(): CatalogSnapshot {
  const { catalog } = usePlatform();
  return useSyncExternalStore(catalog.subscribe, catalog.getSnapshot);
}
