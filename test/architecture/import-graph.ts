/**
 * The import graph of a source tree, read the way TypeScript reads it: every `import`, `import type`,
 * `export ... from` and `import('...')` with a literal specifier of every `.ts`, `.tsx`, `.js` and `.mjs` file
 * under the given folders. Relative specifiers resolve with TypeScript's bundler rules (`./x` to `x.ts`,
 * `x.tsx`, `x/index.ts`; a `.js` extension names the `.ts` file), the package's own name through the
 * `exports` map of its package.json; any other specifier is a package or a Node built-in and stays as written.
 * Files are parsed with Vite's parser (Oxc), so strings, comments and JSX text never pass for imports.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, sep } from 'node:path';
import { parseSync } from 'vite';

/** One import of a file: the specifier as written and, for a file of the tree, the file it names. */
export interface ImportEdge {
  /** The importing file, relative to the root, with `/` separators. */
  readonly from: string;
  /** The module specifier as written. */
  readonly specifier: string;
  /** The imported file relative to the root, or undefined for a package or an unresolved specifier. */
  readonly target: string | undefined;
}

/** Every source file of the tree (relative to the root) and the imports of each. */
export interface ImportGraph {
  readonly root: string;
  readonly files: readonly string[];
  readonly imports: ReadonlyMap<string, readonly ImportEdge[]>;
}

const sourceExtensions = ['.ts', '.tsx', '.mts', '.js', '.mjs'];
// Installed packages and generated output (the apps' built remotes live in backend/apps/<app>/static).
const skippedFolders = new Set(['node_modules', 'dist', 'static', '.platform', '.tmp']);

/** Reads every source file under `folders` (relative to `root`) and resolves its imports. */
export function buildImportGraph(root: string, folders: readonly string[]): ImportGraph {
  const files = folders.flatMap((folder) => listSourceFiles(root, folder)).sort();
  const known = new Set(files);
  const selfReference = readSelfReference(root);
  const imports = new Map<string, ImportEdge[]>();
  for (const file of files) {
    const source = readFileSync(join(root, file), 'utf8');
    imports.set(
      file,
      readSpecifiers(file, source).map((specifier) => ({
        from: file,
        specifier,
        target: resolveSpecifier(file, specifier, known, selfReference),
      })),
    );
  }
  return { root, files, imports };
}

/**
 * The cycles of the graph, each as the list of its files with the first repeated at the end
 * (`a -> b -> a`). Every file that lies on a cycle appears in at least one: for each file of a strongly
 * connected component, the shortest cycle through it, without repeating a cycle already listed.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const next = (file: string): string[] =>
    [
      ...new Set((graph.imports.get(file) ?? []).flatMap((edge) => (edge.target ? [edge.target] : []))),
    ].sort();
  const cycles: string[][] = [];
  const seen = new Set<string>();
  for (const component of stronglyConnectedComponents(graph.files, next)) {
    const members = new Set(component);
    for (const start of component) {
      const cycle = shortestCycleThrough(start, (file) => next(file).filter((target) => members.has(target)));
      if (!cycle) continue;
      const key = canonicalCycleKey(cycle);
      if (seen.has(key)) continue;
      seen.add(key);
      cycles.push([...cycle, cycle[0]!]);
    }
  }
  return cycles;
}

function listSourceFiles(root: string, folder: string): string[] {
  const path = join(root, folder);
  if (!existsSync(path)) return [];
  if (statSync(path).isFile()) return [toPosix(folder)];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) {
      return skippedFolders.has(entry.name) ? [] : listSourceFiles(root, join(folder, entry.name));
    }
    const isSource = sourceExtensions.some((extension) => entry.name.endsWith(extension));
    return isSource && !entry.name.endsWith('.d.ts') ? [toPosix(join(folder, entry.name))] : [];
  });
}

function readSpecifiers(file: string, source: string): string[] {
  const { module, errors } = parseSync(file, source);
  if (errors.length > 0) throw new Error(`${file} does not parse: ${errors[0]!.message}`);
  const staticSpecifiers = [
    ...module.staticImports.map((declaration) => declaration.moduleRequest.value),
    ...module.staticExports.flatMap((declaration) =>
      declaration.entries.flatMap((entry) => (entry.moduleRequest ? [entry.moduleRequest.value] : [])),
    ),
  ];
  // A dynamic import counts only with a literal specifier: a computed one names no file the reader can check.
  const dynamicSpecifiers = module.dynamicImports.flatMap(({ moduleRequest }) => {
    const literal = /^(['"`])([^'"`$]*)\1$/.exec(source.slice(moduleRequest.start, moduleRequest.end));
    return literal ? [literal[2]!] : [];
  });
  return [...new Set([...staticSpecifiers, ...dynamicSpecifiers])];
}

interface SelfReference {
  readonly name: string;
  readonly exports: ReadonlyMap<string, string>;
}

function readSelfReference(root: string): SelfReference | undefined {
  const manifestPath = join(root, 'package.json');
  if (!existsSync(manifestPath)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    name?: string;
    exports?: Record<string, string | { types?: string; default?: string }>;
  };
  if (!manifest.name) return undefined;
  const exports = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const file = typeof target === 'string' ? target : (target.types ?? target.default);
    if (file) exports.set(subpath, file);
  }
  return { name: manifest.name, exports };
}

function resolveSpecifier(
  from: string,
  specifier: string,
  known: ReadonlySet<string>,
  selfReference: SelfReference | undefined,
): string | undefined {
  if (specifier.startsWith('.')) {
    return resolveFile(posix.join(posix.dirname(from), specifier), known);
  }
  if (selfReference && (specifier === selfReference.name || specifier.startsWith(`${selfReference.name}/`))) {
    const subpath = `.${specifier.slice(selfReference.name.length)}`;
    return resolveExport(subpath, selfReference.exports, known);
  }
  return undefined;
}

function resolveExport(
  subpath: string,
  exports: ReadonlyMap<string, string>,
  known: ReadonlySet<string>,
): string | undefined {
  const exact = exports.get(subpath);
  if (exact) return resolveFile(posix.normalize(exact), known);
  for (const [pattern, target] of exports) {
    const [prefix, suffix] = pattern.split('*');
    if (suffix === undefined || !subpath.startsWith(prefix!) || !subpath.endsWith(suffix)) continue;
    const matched = subpath.slice(prefix!.length, subpath.length - suffix.length);
    return resolveFile(posix.normalize(target.replace('*', matched)), known);
  }
  return undefined;
}

// TypeScript's bundler resolution for a path: the file as written, a `.js`-family extension standing for its
// TypeScript source, an added extension, then the folder's index file.
function resolveFile(path: string, known: ReadonlySet<string>): string | undefined {
  const typescriptSource = path.replace(/\.(m?)js$/, '.$1ts').replace(/\.jsx$/, '.tsx');
  const candidates = [
    path,
    typescriptSource,
    ...sourceExtensions.map((extension) => `${path}${extension}`),
    ...sourceExtensions.map((extension) => `${path}/index${extension}`),
  ];
  return candidates.find((candidate) => known.has(candidate));
}

// Tarjan's algorithm, iterative so that a long import chain cannot overflow the stack.
function stronglyConnectedComponents(nodes: readonly string[], next: (node: string) => string[]): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: { node: string; targets: string[]; position: number }[] = [];
    const enter = (node: string) => {
      index.set(node, counter);
      lowLink.set(node, counter);
      counter += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, targets: next(node), position: 0 });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.position < frame.targets.length) {
        const target = frame.targets[frame.position]!;
        frame.position += 1;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLink.set(parent.node, Math.min(lowLink.get(parent.node)!, lowLink.get(frame.node)!));
      if (lowLink.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfImport = next(frame.node).includes(frame.node);
      if (component.length > 1 || selfImport) components.push(component.sort());
    }
  }
  return components;
}

// Breadth-first search from `start` back to itself: the shortest cycle through it.
function shortestCycleThrough(start: string, next: (node: string) => string[]): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head += 1) {
    const node = queue[head]!;
    for (const target of next(node)) {
      if (target === start) {
        const cycle = [node];
        while (cycle[0] !== start) cycle.unshift(previous.get(cycle[0]!)!);
        return cycle;
      }
      if (previous.has(target)) continue;
      previous.set(target, node);
      queue.push(target);
    }
  }
  return undefined;
}

// The same cycle entered at another file is the same cycle: rotate it to start at its smallest file.
function canonicalCycleKey(cycle: readonly string[]): string {
  const smallest = cycle.indexOf([...cycle].sort()[0]!);
  return [...cycle.slice(smallest), ...cycle.slice(0, smallest)].join(' -> ');
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}
