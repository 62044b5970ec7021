import type { DocTypeSchema } from '../../protocol';
import { useDocTypeSchemas } from './use-doc-type-schemas';

/**
 * The schema of any DocType, whichever service owns it: its owner comes from the DiscoveryClient, its
 * metadata from the catalog (loaded on first use). Undefined until known (or when no service owns it).
 */
export function useDocTypeSchema(docType: string | undefined): DocTypeSchema | undefined {
  const schemas = useDocTypeSchemas(docType ? [docType] : []);
  return docType ? schemas[docType] : undefined;
}
