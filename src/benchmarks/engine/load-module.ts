import { pathToFileURL } from 'node:url';
import type { ModuleRef } from '../config/module-ref';
import { harnessError } from '../errors';

/** A factory exported by an operator's module. */
export type Factory = (ctx: unknown) => unknown;

/** One import per module file, shared by every export taken from it (concurrent imports of one file race). */
const modules = new Map<string, Promise<Record<string, unknown>>>();
let tsxRegistered: Promise<void> | undefined;

/**
 * True when this code runs from the built bundle (plain Node, no TypeScript loader); from source, tsx is
 * already registered.
 */
const BUNDLED = import.meta.url.endsWith('.js');

/**
 * Imports the function a {@link ModuleRef} names. Factories may be TypeScript whichever entry runs the
 * harness: from the built bundle, tsx's loader is registered before the first `.ts` module is imported.
 */
export async function importFunction(ref: ModuleRef): Promise<Factory> {
  let mod = modules.get(ref.file);
  if (!mod) {
    mod = importModule(ref);
    modules.set(ref.file, mod);
  }
  const ns = await mod;
  // A CommonJS module's exports may only be visible on its default export.
  const fn = ns[ref.exportName] ?? (ns.default as Record<string, unknown> | undefined)?.[ref.exportName];
  if (typeof fn !== 'function')
    throw harnessError('factory_failed', `${ref.spec} is not an exported function`);
  return fn as Factory;
}

async function importModule(ref: ModuleRef): Promise<Record<string, unknown>> {
  if (BUNDLED && /\.[cm]?ts$/.test(ref.file)) {
    // Both loaders, as `--import tsx` does: a `.ts` file outside a `"type": "module"` package is CommonJS.
    tsxRegistered ??= Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => {
      esm.register();
      cjs.register();
    });
    await tsxRegistered;
  }
  try {
    return await import(pathToFileURL(ref.file).href);
  } catch (err) {
    throw harnessError('factory_failed', `cannot import ${ref.spec}: ${(err as Error).message}`, err);
  }
}
