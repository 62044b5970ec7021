import { isAppPath } from '../../../backend/apps/app-spec';

/** True when this module runs as TypeScript source, which means tsx's loader is already registered. */
const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');

let registered = false;

/**
 * Makes the modules of the app folders among `specs` importable before they are loaded. A team's app module
 * is TypeScript (`app.ts`), and so is the platform package it imports (`@framework-m/desk/app` resolves to
 * `src/app/index.ts`), but `m serve` runs from the prebuilt bundle, where Node alone refuses a `.ts` file
 * ("Unknown file extension"). So tsx's ESM loader is registered here, only when an app is given by path:
 * built-in apps are part of the bundle, and the loader keeps about 60 MB resident (docs/performance.md#memory).
 * Does nothing when the process already runs through tsx (`m` from source, the tests) or when called again.
 */
export async function enableAppModules(specs: readonly string[]): Promise<void> {
  if (RUNNING_FROM_SOURCE || registered || !specs.some(isAppPath)) return;
  const { register } = await import('tsx/esm/api');
  register();
  registered = true;
}
