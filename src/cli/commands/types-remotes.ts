/**
 * Types of the modules other teams' UI remotes expose, for `m types`: each remote's `mf-manifest.json` lists
 * its exposed modules; `./views` is the platform's remote contract (`RemoteViews`, its default export), any
 * other exposed module is `unknown`. Two pieces: the `RemoteModules` map (in the main declarations file, a
 * module) and the ambient `declare module '<service>/<exposed>'` declarations, which TypeScript accepts only
 * in a file that is not a module, so they live in a companion file the main one references. Pure.
 */

/** The package whose `/remote` entry holds the remote contract. */
const REMOTE_CONTRACT = '@framework-m/desk/remote';

/** What one service's remote exposes, read from the manifest at `manifestUrl`. */
export interface ExposedRemote {
  manifestUrl: string;
  /** Exposed module paths as the manifest lists them (`./views`, ...). */
  exposes: string[];
}

/** Service -> what its UI remote exposes. */
export type ExposedModules = Record<string, ExposedRemote>;

/** `crm` + `./views` -> `crm/views`, the name `loadRemote` and `import()` use. */
export function remoteModuleName(service: string, exposed: string): string {
  return `${service}/${exposed.replace(/^\.\//, '')}`;
}

/** Every exposed module as `[module name, service, exposed path, manifest URL]`, sorted by name. */
function modules(remotes: ExposedModules): Array<[string, string, string, string]> {
  return Object.entries(remotes)
    .flatMap(([service, remote]) =>
      remote.exposes.map(
        (exposed) =>
          [remoteModuleName(service, exposed), service, exposed, remote.manifestUrl] as [
            string,
            string,
            string,
            string,
          ],
      ),
    )
    .sort(([a], [b]) => a.localeCompare(b));
}

/** The type of one exposed module's namespace (what `loadRemote` resolves to). */
function moduleType(exposed: string): string {
  return exposed === './views' ? `{ default: import('${REMOTE_CONTRACT}').RemoteViews }` : 'unknown';
}

/** The `RemoteModules` interface: `<service>/<exposed>` -> the module `loadRemote` gives. */
export function remoteModulesMap(remotes: ExposedModules): string {
  let out =
    "/**\n * Every module the services' UI remotes expose (from each remote's mf-manifest.json), by the name\n" +
    " * `loadRemote` takes: `./views` is the platform's remote contract, other modules are `unknown`.\n" +
    ' */\nexport interface RemoteModules {\n';
  for (const [name, , exposed, manifestUrl] of modules(remotes)) {
    out += `  /** \`${exposed}\` of ${manifestUrl} */\n  ${JSON.stringify(name)}: ${moduleType(exposed)};\n`;
  }
  return `${out}}\n`;
}

/**
 * The companion file's text: one ambient `declare module '<service>/<exposed>'` per exposed module, so
 * `import('crm/views')` type-checks. Undefined when no remote exposes anything.
 */
export function remoteModuleDeclarations(gateway: string, remotes: ExposedModules): string | undefined {
  const all = modules(remotes);
  if (all.length === 0) return undefined;
  let out =
    `// Modules exposed by the UI remotes known to ${gateway}, written by \`m types\`.\n` +
    '// Regenerate instead of editing: each remote lists its modules in its mf-manifest.json.\n';
  for (const [name, service, exposed, manifestUrl] of all) {
    out += `\n/** \`${exposed}\` of the \`${service}\` remote, as listed in ${manifestUrl}. */\n`;
    out +=
      exposed === './views'
        ? `declare module ${JSON.stringify(name)} {\n  /** The remote's views: the platform's remote contract. */\n` +
          `  const views: import('${REMOTE_CONTRACT}').RemoteViews;\n  export default views;\n}\n`
        : `declare module ${JSON.stringify(name)} {\n  /** Not part of the platform's contract: its type is the remote's own. */\n` +
          '  const exposed: unknown;\n  export = exposed;\n}\n';
  }
  return out;
}
