import { register } from 'node:module';
import { sep } from 'node:path';
import { APP_RELOAD_PARAM } from '../../../backend/apps';
import { isAppPath } from '../../../backend/apps/app-spec';
import { enableTypeScriptModules } from '../../../backend/apps/typescript-modules';

/**
 * Makes the modules of the app folders among `specs` importable before they are loaded: registers tsx's
 * loader ({@link enableTypeScriptModules}) only when an app is given by path. `m serve` calls it before it
 * registers its reload hook ({@link enableAppReloads}).
 */
export async function enableAppModules(specs: readonly string[]): Promise<void> {
  if (specs.some(isAppPath)) await enableTypeScriptModules();
}

/**
 * A module loader hook (Node's `module.register`): an import from a module loaded with `?desk-reload=<n>`
 * that resolves to a file inside one of the app folders (not their `node_modules`) carries the same query,
 * so a reload reads every changed file of the app afresh; the platform package and other dependencies
 * resolve as before and stay one copy (their classes and zod registry are the ones the backend uses).
 */
const RELOAD_HOOK = `
let roots = [];
export function initialize(data) { roots = data.roots; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (!context.parentURL || !result.url.startsWith('file:')) return result;
  const reload = new URL(context.parentURL).searchParams.get(${JSON.stringify(APP_RELOAD_PARAM)});
  if (!reload) return result;
  const url = new URL(result.url);
  const path = decodeURIComponent(url.pathname);
  if (path.includes('/node_modules/') || !roots.some((root) => path.startsWith(root))) return result;
  url.searchParams.set(${JSON.stringify(APP_RELOAD_PARAM)}, reload);
  return { ...result, url: url.href };
}`;

let reloadsEnabled = false;

/**
 * Lets `loadInstalledApps` with `reload` read the app folders `dirs` afresh (`m serve --watch`): registers
 * {@link RELOAD_HOOK} once per process. An ES module, once loaded, stays loaded: each reload keeps the
 * previous copy of the app's own modules in memory, a small cost of a development server.
 */
export function enableAppReloads(dirs: readonly string[]): void {
  if (reloadsEnabled) return;
  const roots = dirs.map((dir) => (dir.endsWith(sep) ? dir : `${dir}${sep}`));
  register(`data:text/javascript,${encodeURIComponent(RELOAD_HOOK)}`, { data: { roots } });
  reloadsEnabled = true;
}
