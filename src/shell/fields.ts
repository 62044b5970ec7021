/**
 * The Desk's view of DocType fields: the metadata's fields plus what newer services publish (`default`,
 * `link`, `unique`, the `datetime` and `link` types). Older services simply lack them.
 */
import type { FieldSchema } from '../protocol';

/** A field as the Desk reads it. */
export type DeskField = Omit<FieldSchema, 'type'> & {
  type: FieldSchema['type'] | 'datetime' | 'link';
  /** The value a new record starts with. */
  default?: unknown;
  /** For a `link` field: the full name of the DocType it refers to, e.g. `crm.Customer`. */
  link?: string;
  /** No two records may share this field's value. */
  unique?: boolean;
};

/** The fields of a schema, typed as the Desk reads them. */
export function deskFields(schema: { fields: readonly FieldSchema[] }): DeskField[] {
  return schema.fields as unknown as DeskField[];
}

/** The target DocType of a link field, or undefined for any other field. */
export function linkTarget(field: DeskField): string | undefined {
  return field.type === 'link' && typeof field.link === 'string' ? field.link : undefined;
}

/** The values a new record's form starts from: each field's `default`, when it has one. */
export function initialValues(fields: readonly DeskField[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.default !== undefined && field.default !== null) values[field.name] = field.default;
  }
  return values;
}

/** A calendar day (`YYYY-MM-DD`) as people read it in their own locale, or the raw value when it is not one. */
export function formatDate(day: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const date = match ? new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : undefined;
  if (!date || Number.isNaN(date.getTime())) return day;
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(date);
}

/** A date-time as people read it in their own locale, or the raw value when it is not a date. */
export function formatDateTime(value: unknown): string {
  if (typeof value !== 'string' || !value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}
