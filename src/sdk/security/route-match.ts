/**
 * Path globs of selective mode (docs/security.md#payload-encryption-modes: patterns are path globs): `*`
 * matches within one path segment, `**` across segments; everything else is literal. Matching is on the path
 * only, never the query.
 */

const cache = new Map<string, RegExp>();

/** Compiles a path glob to an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  let compiled = cache.get(glob);
  if (compiled) return compiled;
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        source += '.*';
        i++;
      } else source += '[^/]*';
    } else source += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  compiled = new RegExp(`^${source}$`);
  cache.set(glob, compiled);
  return compiled;
}

/** The path of `url` (absolute or relative), without query or fragment. */
export function pathOf(url: string): string {
  const base = (globalThis as { location?: { href?: string } }).location?.href ?? 'http://localhost/';
  return new URL(url, base).pathname;
}

/** True when the path of `url` matches one of the `routes` globs. */
export function matchesRoute(url: string, routes: readonly string[]): boolean {
  const path = pathOf(url);
  return routes.some((glob) => globToRegExp(glob).test(path));
}
