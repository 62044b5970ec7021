/**
 * Path globs of `selective` mode: `*` matches within one path segment, `**` across segments; everything
 * else is literal. Matching is on the path only, never the query.
 */

const cache = new Map<string, RegExp>();

/**
 * Compiles a path glob to an anchored regular expression (compiled once per glob).
 * @example globToRegExp('/api/method/crm.*').test('/api/method/crm.convert') // true
 */
export function globToRegExp(glob: string): RegExp {
  let compiled = cache.get(glob);
  if (compiled) return compiled;
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (ch === '*') source += '[^/]*';
    else source += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  compiled = new RegExp(`^${source}$`);
  cache.set(glob, compiled);
  return compiled;
}

/** True when `path` (no query) matches one of the `routes` globs. */
export function matchesRoute(path: string, routes: readonly string[]): boolean {
  for (const glob of routes) if (globToRegExp(glob).test(path)) return true;
  return false;
}
