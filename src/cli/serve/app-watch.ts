import { type FSWatcher, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';

/** Folders of an app whose files are not its definitions: its UI, build output, state, tests, packages. */
const NOT_DEFINITIONS = new Set(['ui', 'static', 'node_modules', '.platform', 'test', 'tests', '.git']);

/** The source files an app's definitions can be in. */
const SOURCE = /\.(?:[cm]?ts|[cm]?js|json)$/;

/** Waits this long after a change for the rest of an editor's writes before reloading. */
const SETTLE_MS = 150;

/**
 * True when `file` (relative to an app folder) can change the app's definitions: a TypeScript, JavaScript
 * or JSON file outside `ui/`, `static/`, `node_modules/`, `.platform/` and the tests.
 */
export function isDefinitionSource(file: string): boolean {
  const [first] = file.split(/[\\/]/);
  return SOURCE.test(file) && !NOT_DEFINITIONS.has(first ?? '') && !file.endsWith('.d.ts');
}

/**
 * Calls `onChange` with the changed files once the writes to the app folders `dirs` have settled, for the
 * files {@link isDefinitionSource} accepts (`m serve --watch`). A folder created at the top of an app folder
 * after the start is not followed. Returns the function that stops watching.
 */
export function watchAppSources(dirs: readonly string[], onChange: (files: string[]) => void): () => void {
  let changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const changedIn = (prefix: string) => (_event: string, name: string | null) => {
    const file = name && `${prefix}${name}`;
    if (!file || !isDefinitionSource(file)) return;
    changed.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...changed];
      changed = new Set();
      onChange(files);
    }, SETTLE_MS);
  };
  // The folder itself, and recursively only its folders that can hold definitions: a recursive watch of the
  // whole folder would walk node_modules (and the platform linked into it).
  const watchers: FSWatcher[] = dirs.flatMap((dir) => [
    watch(dir, changedIn('')),
    ...readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !NOT_DEFINITIONS.has(entry.name))
      .map((entry) => watch(join(dir, entry.name), { recursive: true }, changedIn(`${entry.name}/`))),
  ]);
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
