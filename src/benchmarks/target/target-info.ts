import type { DocTypeSchema, SecurityConfig } from '../../protocol';

/** Where a DocType's data lives and what its fields are (from discovery and the owner's `metaUrl`). */
export interface DocTypeTarget {
  owner: string;
  /** Absolute base of the owner's data API (`<apiUrl>/resource/<DocType>`). */
  apiUrl: string;
  schema: DocTypeSchema;
}

/**
 * What the harness learns from the target before a run, once, in the main thread; plain data so it can be
 * handed to worker threads. `security` is null when the target has no security endpoint (plain JSON).
 */
export interface TargetInfo {
  security: SecurityConfig | null;
  doctypes: Record<string, DocTypeTarget>;
  /** RPC services: service name -> absolute `apiUrl`. */
  services: Record<string, string>;
}
