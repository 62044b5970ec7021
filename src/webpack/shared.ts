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
  /**
   * `false` in a remote: the module always comes from the Desk's share scope, so the remote ships no copy
   * of its own (no fallback chunk to build, serve or download).
   */
  import?: false;
}

/** Whose `shared` map {@link sharedSingletons} builds: the Desk (which provides) or a remote (which consumes). */
export type SharedRole = 'host' | 'remote';

/** The platform's pinned dependency versions (package.json `dependencies`). */
export function platformDependencies(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(PLATFORM_ROOT, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return pkg.dependencies ?? {};
}

/**
 * The `shared` map of the Desk and of every remote: the singletons at the Desk's exact versions, plus the
 * subpaths the automatic JSX runtime and the React root import. The Desk (`host`, the default) provides them;
 * a `remote` consumes them with `import: false`: it gets the Desk's copies at run time and bundles none of
 * its own (docs/performance.md#the-first-screen). A version that does not satisfy `requiredVersion` is
 * reported by the Desk.
 */
export function sharedSingletons(role: SharedRole = 'host'): Record<string, SharedEntry> {
  const deps = platformDependencies();
  const entry = (version: string | undefined): SharedEntry => ({
    singleton: true,
    requiredVersion: version ?? false,
    ...(role === 'remote' ? { import: false as const } : {}),
  });
  const entries: Record<string, SharedEntry> = {};
  for (const name of SHARED_SINGLETONS) entries[name] = entry(deps[name]);
  entries['react/jsx-runtime'] = entry(deps.react);
  entries['react/jsx-dev-runtime'] = entry(deps.react);
  entries['react-dom/client'] = entry(deps['react-dom']);
  return entries;
}
