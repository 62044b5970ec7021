import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * A reference to a function exported by a JS/TS module, as `body_factory` and custom auth `factory` give it.
 * Two spellings, both resolved relative to the directory of the config file:
 * - `./factories.ts#makeOrder` (a module path, `#` and the export; without `#` the default export);
 * - `factories.make_order` (dotted, the spec's form: the last segment is the export, the others a path,
 *   tried with `.ts`, `.mts`, `.js`, `.mjs`: here `./factories.ts` export `make_order`).
 */
export interface ModuleRef {
  /** As written in the config. */
  spec: string;
  /** Absolute module file. */
  file: string;
  exportName: string;
}

const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

/** Resolves a module reference; returns a message when the module file does not exist. */
export function resolveModuleRef(spec: string, configPath: string): ModuleRef | string {
  const base = dirname(resolve(configPath));
  const hash = spec.lastIndexOf('#');
  if (hash >= 0 || spec.includes('/')) {
    const modPath = hash >= 0 ? spec.slice(0, hash) : spec;
    const exportName = hash >= 0 ? spec.slice(hash + 1) : 'default';
    if (!/^[A-Za-z_$][\w$]*$/.test(exportName)) return `"${exportName}" is not an export name`;
    const file = isAbsolute(modPath) ? modPath : resolve(base, modPath);
    return existsSync(file)
      ? { spec, file, exportName }
      : `module ${modPath} not found next to the config file`;
  }
  const segments = spec.split('.');
  if (segments.length < 2 || !segments.every((s) => /^[A-Za-z_$][\w$-]*$/.test(s))) {
    return `"${spec}" is neither "./module.ts#export" nor a dotted "module.export"`;
  }
  const exportName = segments.pop()!;
  const stem = join(base, ...segments);
  const file = EXTENSIONS.map((ext) => stem + ext).find((f) => existsSync(f));
  return file
    ? { spec, file, exportName }
    : `module ${segments.join('/')}{${EXTENSIONS.join(',')}} not found next to the config file`;
}
