/**
 * Records which JavaScript files the Desk's first screen (a DocType list, right after sign-in) runs, so the
 * build can hold them to a size budget (scripts/build.js, docs/performance.md#the-first-screen).
 *
 * - In the Desk (`role: 'host'`): the entry's chunks, then every chunk loaded from them on demand, except
 *   chunk groups named as `deferred` (screens other than the list, the search palette, Refine's scope), and
 *   except shared libraries the Desk only offers to remotes (a provided module is not run until consumed).
 * - In a remote (`role: 'remote'`): `remoteEntry.js` and the chunks of its `./views` module, which a list
 *   route loads to learn whether the owner replaces the generic list; nothing the views load later.
 *
 * The list is written to `first-screen.json` beside the build's files: `{ "files": ["main.1a2b.js", ...] }`.
 */
import webpack, { type Chunk, type ChunkGroup, type Compilation, type Compiler, type Module } from 'webpack';

/** The file every build writes its first-screen list to. */
export const FIRST_SCREEN_FILE = 'first-screen.json';

/**
 * The Desk's chunk groups that are not part of the first screen: the other screens (`route-*`, named with
 * `webpackChunkName` where they are imported), the search palette, Refine's scope for remote components,
 * jose (loaded by the first encryption, src/sdk/security), the diagnosis of a remote that failed to load
 * (`remote-failure`, loaded only then, src/sdk/remotes), and the confining of a remote's own stylesheet
 * (`remote-styles`, loaded with the first one a remote adds, src/shell/isolation).
 */
export const FIRST_SCREEN_DEFERRED = /^(route-|search-|refine-|jose$|remote-failure$|remote-styles$)/;

/** Options of {@link FirstScreenPlugin}. */
export interface FirstScreenOptions {
  role: 'host' | 'remote';
  /** Host: chunk-group names that are not part of the first screen. */
  deferred?: RegExp;
  /** Remote: the exposed module a list route loads; default `./views`. */
  exposed?: string;
}

/** A provided shared module's share key (`ProvideSharedModule#_name`). */
const provideKey = (module: Module) => (module as unknown as { _name?: string })._name;
/** A consumed shared module's share key (`ConsumeSharedModule#options.shareKey`). */
const consumeKey = (module: Module) =>
  (module as unknown as { options?: { shareKey?: string } }).options?.shareKey;

/**
 * Chunk groups reached from `start`'s chunks through async blocks, skipping deferred ones and provides. A
 * consumed shared module is followed to the Desk's provided copy, the chunk the share scope loads (its own
 * fallback chunk, identical, loads only when nothing is provided).
 */
function reachable(compilation: Compilation, start: ChunkGroup, deferred: RegExp | undefined): Set<Chunk> {
  const { chunkGraph } = compilation;
  const provided = new Map<string, Module>();
  for (const module of compilation.modules) {
    const key = module.type === 'provide-module' ? provideKey(module) : undefined;
    if (key) provided.set(key, module);
  }
  const chunks = new Set<Chunk>();
  const seen = new Set<ChunkGroup>();
  const queue: ChunkGroup[] = [start];
  while (queue.length > 0) {
    const group = queue.shift()!;
    if (seen.has(group)) continue;
    seen.add(group);
    for (const chunk of group.chunks) {
      chunks.add(chunk);
      for (const module of chunkGraph.getChunkModulesIterable(chunk)) {
        // A provided shared module is offered to remotes; its code runs only when someone consumes it.
        if (module.type === 'provide-module') continue;
        const key = module.type === 'consume-shared-module' ? consumeKey(module) : undefined;
        const source = (key && provided.get(key)) || module;
        for (const block of source.blocks) {
          const next = chunkGraph.getBlockChunkGroup(block);
          if (!next || (deferred && next.name && deferred.test(next.name))) continue;
          queue.push(next);
        }
      }
    }
  }
  return chunks;
}

function remoteChunks(compilation: Compilation, exposed: string): Set<Chunk> {
  const { chunkGraph } = compilation;
  const chunks = new Set<Chunk>();
  for (const entry of compilation.entrypoints.values()) {
    for (const chunk of entry.chunks) {
      chunks.add(chunk);
      for (const module of chunkGraph.getChunkModulesIterable(chunk)) {
        if (module.type !== 'javascript/dynamic' && !module.identifier().startsWith('container entry'))
          continue;
        for (const block of module.blocks) {
          const request = (block as { request?: string }).request;
          const group = chunkGraph.getBlockChunkGroup(block);
          if (group && (request === exposed || group.name?.endsWith(exposed.replace(/^\.\//, '')))) {
            for (const c of group.chunks) chunks.add(c);
          }
        }
      }
    }
  }
  return chunks;
}

/** The JavaScript files of the first screen in `compilation` (after chunk files are named). */
export function firstScreenFiles(compilation: Compilation, options: FirstScreenOptions): string[] {
  const chunks =
    options.role === 'host'
      ? [...compilation.entrypoints.values()].flatMap((e) => [...reachable(compilation, e, options.deferred)])
      : [...remoteChunks(compilation, options.exposed ?? './views')];
  return [...new Set(chunks.flatMap((c) => [...c.files]))].filter((f) => f.endsWith('.js')).sort();
}

/** Writes `first-screen.json` (see the module comment). */
export class FirstScreenPlugin {
  readonly #options: FirstScreenOptions;

  constructor(options: FirstScreenOptions) {
    this.#options = options;
  }

  apply(compiler: Compiler): void {
    compiler.hooks.thisCompilation.tap('FirstScreenPlugin', (compilation) => {
      compilation.hooks.processAssets.tap(
        { name: 'FirstScreenPlugin', stage: webpack.Compilation.PROCESS_ASSETS_STAGE_REPORT },
        () => {
          const chunks =
            this.#options.role === 'host'
              ? [...compilation.entrypoints.values()].flatMap((e) => [
                  ...reachable(compilation, e, this.#options.deferred),
                ])
              : [...remoteChunks(compilation, this.#options.exposed ?? './views')];
          const files = [...new Set(chunks.flatMap((c) => [...c.files]))]
            .filter((f) => f.endsWith('.js'))
            .sort();
          compilation.emitAsset(
            FIRST_SCREEN_FILE,
            new webpack.sources.RawSource(`${JSON.stringify({ files }, null, 2)}\n`),
          );
        },
      );
    });
  }
}
