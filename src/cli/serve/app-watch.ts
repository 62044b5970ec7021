import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join, relative } from 'node:path';

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

/** The files under `folder`, relative to it (none when it is gone). */
function filesUnder(folder: string): string[] {
  try {
    return readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(folder, join(entry.parentPath, entry.name)));
  } catch {
    return [];
  }
}

/** True when `path` is a folder now. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Calls `onChange` with the changed files once the writes to the app folders `dirs` have settled, for the
 * files {@link isDefinitionSource} accepts (`m serve --watch`). A folder created at the top of an app folder
 * after the start is followed from then on, and the definition files it already holds count as changed (an
 * editor or `git checkout` writes them before the watch can start). Returns the function that stops watching.
 */
export function watchAppSources(dirs: readonly string[], onChange: (files: string[]) => void): () => void {
  let changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const note = (file: string) => {
    if (!isDefinitionSource(file)) return;
    changed.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...changed];
      changed = new Set();
      onChange(files);
    }, SETTLE_MS);
  };
  const changedIn = (prefix: string) => (_event: string, name: string | null) => {
    if (name) note(`${prefix}${name}`);
  };
  // The folder itself, and recursively only its folders that can hold definitions: a recursive watch of the
  // whole folder would walk node_modules (and the platform linked into it).
  const followed = new Map<string, FSWatcher>();
  const follow = (dir: string, name: string): boolean => {
    const path = join(dir, name);
    if (followed.has(path) || NOT_DEFINITIONS.has(name)) return false;
    try {
      const watcher = watch(path, { recursive: true }, changedIn(`${name}/`));
      // A followed folder removed: its watcher ends; one created again under that name is followed anew.
      watcher.on('error', () => unfollow(path));
      followed.set(path, watcher);
      return true;
    } catch {
      return false;
    }
  };
  const unfollow = (path: string) => {
    followed.get(path)?.close();
    followed.delete(path);
  };
  const atTop = (dir: string) => (event: string, name: string | null) => {
    if (name && !/[\\/]/.test(name)) {
      const path = join(dir, name);
      if (isFolder(path)) {
        if (follow(dir, name)) for (const file of filesUnder(path)) note(`${name}/${file}`);
      } else if (followed.has(path)) {
        unfollow(path);
      }
    }
    changedIn('')(event, name);
  };
  const top: FSWatcher[] = dirs.map((dir) => watch(dir, atTop(dir)));
  for (const dir of dirs) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) follow(dir, entry.name);
    }
  }
  return () => {
    clearTimeout(timer);
    for (const watcher of [...top, ...followed.values()]) watcher.close();
    followed.clear();
  };
}
