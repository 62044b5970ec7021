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
  | 'date'
  | 'datetime'
  | 'link';

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
  /** The value a new record starts with. */
  default?: unknown;
  /** For a `link` field: the full name of the DocType it refers to, e.g. `crm.Customer`. */
  link?: string;
  /** No two records of the DocType may share this field's value (409 `duplicate`). */
  unique?: boolean;
  /** The field is filtered or sorted on often: the database keeps an index on it. */
  index?: boolean;
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
  return Boolean(schema?.fields?.some(isFlagged));
}

/**
 * True when a field is flagged `encrypted` or `pii`: encrypted from the browser and at rest, unsortable,
 * filtered by equality only, and audited when revealed (docs/security.md#field-flags).
 */
export function isFlagged(field: { encrypted?: boolean; pii?: boolean }): boolean {
  return field.encrypted === true || field.pii === true;
}

/** The names of a schema's flagged fields ({@link isFlagged}), in its order. */
export function flaggedFieldNames(schema: {
  fields: ReadonlyArray<FlaggedSchema['fields'][number] & { name: string }>;
}): string[] {
  return schema.fields.filter(isFlagged).map((f) => f.name);
}
