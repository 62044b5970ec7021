import { z } from 'zod';

import type { FieldSchema, FieldType } from '../protocol';

export type { FieldType };

/**
 * Metadata a DocType model field carries through zod `.meta()`.
 * `encrypted` / `pii` are the field flags of docs/security.md#field-flags: valid on DocType models only (see
 * `openapi`).
 */
export interface FieldMeta {
  label?: string;
  type?: FieldType;
  encrypted?: boolean;
  pii?: boolean;
  /** Shown in list views. */
  inList?: boolean;
  /** Makes a Link field: the full name of the DocType whose records it names, e.g. `crm.Customer`. */
  link?: string;
  /** No two records may share the value (409 `duplicate`). */
  unique?: boolean;
  /**
   * Give the field a database index, so list filters, sorts and prefix search on it do not scan the
   * DocType (docs/performance.md#indexes). Link and `unique` fields and the title field are indexed anyway.
   */
  index?: boolean;
}

/** One field of a DocType: the wire contract's field schema, as the metadata endpoint publishes it. */
export type DocTypeField = FieldSchema;

/** A DocType: a zod model plus the field list derived from it. */
export interface DocTypeDefinition<M extends z.ZodObject = z.ZodObject> {
  /** Full name, `<app>.<DocType>`, e.g. `crm.Customer`. */
  name: string;
  app: string;
  label: string;
  /** The field shown as a record's title. */
  titleField: string;
  /** Prefix of generated record names, e.g. `CUST` -> `CUST-00001`. */
  namePrefix: string;
  model: M;
  fields: DocTypeField[];
  /** Fields declared `index: true` in their `.meta()` (see {@link indexedFields} for all indexed ones). */
  indexed?: readonly string[];
}

/** Marks zod schemas that are DocType models (the only place `encrypted` / `pii` flags are allowed). */
export const DOCTYPE_MODEL = Symbol.for('framework-m.doctype-model');

/** A default worth publishing: a JSON scalar (a factory's result or an object is left to the server). */
function publishableDefault(value: unknown): unknown {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : undefined;
}

function unwrap(schema: z.ZodType): {
  inner: z.ZodType;
  optional: boolean;
  meta: FieldMeta;
  defaultValue?: unknown;
} {
  let current: z.ZodType = schema;
  let optional = false;
  let defaultValue: unknown;
  let meta: FieldMeta = { ...(current.meta() as FieldMeta | undefined) };
  while (
    current instanceof z.ZodOptional ||
    current instanceof z.ZodNullable ||
    current instanceof z.ZodDefault
  ) {
    optional = true;
    if (current instanceof z.ZodDefault && defaultValue === undefined) {
      defaultValue = publishableDefault(current.def.defaultValue);
    }
    current = current.unwrap() as z.ZodType;
    meta = { ...(current.meta() as FieldMeta | undefined), ...meta };
  }
  return { inner: current, optional, meta, defaultValue };
}

function inferType(inner: z.ZodType, meta: FieldMeta): FieldType {
  if (meta.type) return meta.type;
  if (meta.link) return 'link';
  if (inner instanceof z.ZodEnum) return 'select';
  if (inner instanceof z.ZodBoolean) return 'boolean';
  if (inner instanceof z.ZodNumber) return inner.format === 'safeint' ? 'int' : 'float';
  if (inner instanceof z.ZodEmail) return 'email';
  return 'string';
}

function humanize(name: string): string {
  return name.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}

/** Derives the field list of a DocType model from its zod shape and `.meta()`. */
export function fieldsOf(model: z.ZodObject): DocTypeField[] {
  return Object.entries(model.shape).map(([name, schema]) => {
    const { inner, optional, meta, defaultValue } = unwrap(schema as z.ZodType);
    const field: DocTypeField = {
      name,
      type: inferType(inner, meta),
      label: meta.label ?? humanize(name),
      required: !optional,
    };
    if (inner instanceof z.ZodEnum) field.options = inner.options.map(String);
    if (meta.encrypted) field.encrypted = true;
    if (meta.pii) field.pii = true;
    if (meta.inList) field.inList = true;
    if (defaultValue !== undefined) field.default = defaultValue;
    if (meta.link) {
      if (!DOCTYPE_NAME_PATTERN.test(meta.link)) {
        throw new Error(`Field "${name}" links to "${meta.link}", which is not a <app>.<DocType> name`);
      }
      field.link = meta.link;
    }
    if (meta.unique) field.unique = true;
    if (meta.index) field.index = true;
    return field;
  });
}

/** The fields of a model declared `index: true`. */
export function declaredIndexes(model: z.ZodObject): string[] {
  return Object.entries(model.shape)
    .filter(([, schema]) => unwrap(schema as z.ZodType).meta.index === true)
    .map(([name]) => name);
}

/**
 * Declares a DocType from a zod object model.
 *
 * @example
 * export const Customer = defineDocType({
 *   name: 'crm.Customer', label: 'Customer', titleField: 'customer_name',
 *   model: z.object({
 *     customer_name: z.string().min(1).meta({ label: 'Customer Name', inList: true }),
 *     email: z.email().meta({ pii: true }).optional(),
 *   }),
 * });
 */
export function defineDocType<M extends z.ZodObject>(def: {
  name: string;
  label: string;
  titleField: string;
  /** Default: the first four letters of the DocType, upper-cased (`crm.Customer` -> `CUST`). */
  namePrefix?: string;
  model: M;
}): DocTypeDefinition<M> {
  const [app, local] = def.name.split('.');
  if (!app || !local || !/^[a-z][a-z0-9_]*\.[A-Z][A-Za-z0-9]*$/.test(def.name)) {
    throw new Error(`DocType name "${def.name}" is not of the form <app>.<DocType>`);
  }
  Object.defineProperty(def.model, DOCTYPE_MODEL, { value: true });
  const namePrefix = def.namePrefix ?? local.slice(0, 4).toUpperCase();
  return { ...def, app, namePrefix, fields: fieldsOf(def.model), indexed: declaredIndexes(def.model) };
}

/** Pattern of a full DocType name, `<app>.<DocType>`. */
export const DOCTYPE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}\.[A-Z][A-Za-z0-9]{0,63}$/;
