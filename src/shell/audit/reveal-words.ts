/** A reveal of the audit log in words, for the Desk's audit screens. */
import type { DocTypeSchema } from '../../protocol';

/** Labels of `fields` as the form shows them (the field's name where the schema is not known). */
export function fieldLabels(
  schema: Pick<DocTypeSchema, 'fields'> | undefined,
  fields: readonly string[],
): string {
  return fields.map((f) => schema?.fields.find((d) => d.name === f)?.label ?? f).join(', ');
}

/** How the data was shown: a record opened, or a list. */
export function routeWords(route: string): string {
  return route === 'list' ? 'in a list' : 'opened';
}

/** How the user signed in. */
export function viaWords(via: string): string {
  if (via === 'session') return 'signed in';
  if (via === 'api_key') return 'API key';
  if (via === 'bearer') return 'token';
  return via;
}
