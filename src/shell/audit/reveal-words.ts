/** A reveal of the audit log in words, for the Desk's audit screens. */
import type { DocTypeSchema } from '../../protocol';

/** Labels of `fields` as the form shows them (the field's name where the schema is not known). */
export function fieldLabels(
  schema: Pick<DocTypeSchema, 'fields'> | undefined,
  fields: readonly string[],
): string {
  return fields.map((f) => schema?.fields.find((d) => d.name === f)?.label ?? f).join(', ');
}

/** The route of a reveal made while an RPC method ran (`POST /api/method/<name>`). */
const METHOD_ROUTE = /^POST \/api\/method\/(.+)$/;

/**
 * How the data was shown: a record opened (`get`), a list (`list`), or read by an RPC method on the
 * caller's behalf (`POST /api/method/<name>`, docs/permissions.md#reveals-are-audited), named by the method.
 */
export function routeWords(route: string): string {
  if (route === 'list') return 'in a list';
  if (route === 'get') return 'opened';
  const method = METHOD_ROUTE.exec(route)?.[1];
  return method ? `through ${method}` : route;
}

/** How the user signed in. */
export function viaWords(via: string): string {
  if (via === 'session') return 'signed in';
  if (via === 'api_key') return 'API key';
  if (via === 'bearer') return 'token';
  return via;
}
