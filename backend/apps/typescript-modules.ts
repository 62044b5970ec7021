/** True when this module runs as TypeScript source, which means tsx's loader is already registered. */
const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');

let registered: Promise<void> | undefined;

/**
 * Makes TypeScript modules importable in this process. A team's app module is TypeScript (`app.ts`), and so
 * is the platform package it imports (`@framework-m/desk/app` resolves to `src/app/index.ts`), but `m` runs
 * its commands from the prebuilt bundle, where Node alone refuses a `.ts` file ("Unknown file extension").
 * So tsx's ESM loader is registered, once, by the first caller about to import one: built-in apps are part
 * of the bundle, and the loader costs about 0.4 s of CPU to start and keeps about 60 MB resident
 * (docs/performance.md#memory). Does nothing when the process already runs through tsx (`m` from source,
 * the tests).
 */
export function enableTypeScriptModules(): Promise<void> {
  if (RUNNING_FROM_SOURCE) return Promise.resolve();
  registered ??= import('tsx/esm/api').then(({ register }) => {
    register();
  });
  return registered;
}
