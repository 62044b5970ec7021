/**
 * DocType schemas as a service's metadata endpoint publishes them, and the field flags (`encrypted`, `pii`)
 * that decide whether `metadata` encryption mode encrypts a DocType's bodies.
 */

/** The kinds of field a DocType can have; the Desk picks an input per kind. */
export type FieldType =
  | 'string'
  | 'text'
  | 'email'
  | 'phone'
  | 'int'
  | 'float'
  | 'currency'
  | 'select'
  | 'boolean'
  | 'date';

/** One DocType field. `encrypted` and `pii` are the field flags: either makes the DocType "flagged". */
export interface FieldSchema {
  name: string;
  type: FieldType;
  label: string;
  required: boolean;
  options?: string[];
  encrypted?: boolean;
  pii?: boolean;
  inList?: boolean;
}

/** A DocType's schema: what `meta.schema` carries into `encryptPayload`. */
export interface DocTypeSchema {
  name: string;
  app: string;
  label: string;
  titleField: string;
  fields: FieldSchema[];
}

/** Anything carrying a field list with flags: a {@link DocTypeSchema} or a backend DocType definition. */
export interface FlaggedSchema {
  fields: ReadonlyArray<{ encrypted?: boolean; pii?: boolean }>;
}

/**
 * True when any field is flagged `encrypted` or `pii` (a `pii` field counts as encrypted): `metadata` mode
 * encrypts the bodies of such DocTypes. No schema is not flagged.
 */
export function hasFlaggedFields(schema: FlaggedSchema | undefined): boolean {
  return Boolean(schema?.fields?.some((f) => f.encrypted === true || f.pii === true));
}
