import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The platform's root folder (this file lives in `<root>/src/webpack/`). */
export const PLATFORM_ROOT = join(import.meta.dirname, '..', '..');

/** The libraries the Desk and every remote share one copy of (React context and the query cache live in them). */
export const SHARED_SINGLETONS = ['react', 'react-dom', '@tanstack/react-query', '@refinedev/core'] as const;

/** One entry of a Module Federation `shared` map. */
export interface SharedEntry {
  singleton: true;
  requiredVersion: string | false;
  version?: string;
}

/** The platform's pinned dependency versions (package.json `dependencies`). */
export function platformDependencies(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(PLATFORM_ROOT, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return pkg.dependencies ?? {};
}

/**
 * The `shared` map of the Desk and of every remote: the singletons at the Desk's exact versions, plus the
 * subpaths the automatic JSX runtime and the React root import. A remote built with this map gets the Desk's
 * copies at run time; a version that does not satisfy `requiredVersion` is reported by the Desk.
 */
export function sharedSingletons(): Record<string, SharedEntry> {
  const deps = platformDependencies();
  const entries: Record<string, SharedEntry> = {};
  for (const name of SHARED_SINGLETONS)
    entries[name] = { singleton: true, requiredVersion: deps[name] ?? false };
  entries['react/jsx-runtime'] = { singleton: true, requiredVersion: deps.react ?? false };
  entries['react/jsx-dev-runtime'] = { singleton: true, requiredVersion: deps.react ?? false };
  entries['react-dom/client'] = { singleton: true, requiredVersion: deps['react-dom'] ?? false };
  return entries;
}
