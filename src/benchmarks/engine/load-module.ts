import { pathToFileURL } from 'node:url';
import type { ModuleRef } from '../config/module-ref';
import { harnessError } from '../errors';

/** A factory exported by an operator's module. */
export type Factory = (ctx: unknown) => unknown;

const cache = new Map<string, Promise<Factory>>();
let tsxRegistered: Promise<void> | undefined;

/**
 * Imports the function a {@link ModuleRef} names, once per module and export. A `.ts` module imported from
 * the built (plain Node) entry fails with ERR_UNKNOWN_FILE_EXTENSION: tsx's loader is then registered and
 * the import retried, so factories may be TypeScript whichever entry runs the harness.
 */
export function importFunction(ref: ModuleRef): Promise<Factory> {
  const key = `${ref.file}#${ref.exportName}`;
  let p = cache.get(key);
  if (!p) {
    p = load(ref);
    cache.set(key, p);
  }
  return p;
}

async function load(ref: ModuleRef): Promise<Factory> {
  const url = pathToFileURL(ref.file).href;
  let mod: Record<string, unknown>;
  try {
    mod = await import(url);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw harnessError('factory_failed', `cannot import ${ref.spec}: ${(err as Error).message}`, err);
    }
    tsxRegistered ??= import('tsx/esm/api').then((m) => {
      m.register();
    });
    await tsxRegistered;
    mod = await import(url);
  }
  const fn = mod[ref.exportName];
  if (typeof fn !== 'function')
    throw harnessError('factory_failed', `${ref.spec} is not an exported function`);
  return fn as Factory;
}
