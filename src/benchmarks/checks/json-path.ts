/**
 * Splits a JSON path (`data.items[0].name`, `data.items.0.name` or `$.data.name`) into its keys and
 * indexes. The syntax is checked by the schema; this only splits.
 */
export function parseJsonPath(path: string): string[] {
  return path
    .replace(/^\$\.?/, '')
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '');
}

/** The value at `keys` in `root` (own properties only), or undefined when any step is missing. */
export function valueAtPath(root: unknown, keys: readonly string[]): unknown {
  let cur = root;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** The JSON type name of a value: string, number, boolean, object, array or null. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
