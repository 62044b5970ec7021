import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { InstalledApp } from '../../src/contract';
import { isAppPath } from './app-spec';
import { enableTypeScriptModules } from './typescript-modules';

export { APP_NAME_SPEC, isAppPath } from './app-spec';

/**
 * The apps this backend can install by name, each loaded on use. `tool.platform.apps` (or `m serve --app`)
 * picks which of them a process installs. A built-in app adds one line here and a folder
 * `backend/apps/<name>/` with `app.ts` (its DocTypes and RPC methods) and, for a UI remote,
 * `static/mfe/remoteEntry.js`. An app from anywhere else is given by its path instead (see {@link isAppPath}).
 */
export const AVAILABLE_APPS: Record<string, () => Promise<InstalledApp>> = {
  crm: async () => (await import('./crm/app')).crmApp,
  stock: async () => (await import('./stock/app')).stockApp,
  support: async () => (await import('./support/app')).supportApp,
};

/** File names tried, in order, for an app folder's module when its package.json names none. */
export const APP_MODULE_CANDIDATES = ['app.ts', 'app/index.ts', 'src/app.ts', 'app.js'];

/**
 * The app module of an app folder: package.json `desk.app` when present, else the first of
 * {@link APP_MODULE_CANDIDATES} that exists. Throws `Error` naming the folder when there is none.
 */
export function appModuleOf(dir: string): string {
  const pkgFile = join(dir, 'package.json');
  if (existsSync(pkgFile)) {
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { desk?: { app?: string } };
    if (pkg.desk?.app) return resolve(dir, pkg.desk.app);
  }
  const found = APP_MODULE_CANDIDATES.map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!found) throw new Error(`${dir} has no app module (${APP_MODULE_CANDIDATES.join(', ')})`);
  return found;
}

/** The query that makes an app module, and the app folder's modules it imports, load afresh (a reload). */
export const APP_RELOAD_PARAM = 'desk-reload';

/** Where the app folder `spec` (relative to `cwd`, `~` for the home folder) is. */
export function appFolderOf(spec: string, cwd = process.cwd()): string {
  return resolve(cwd, spec.replace(/^~(?=$|[\\/])/, process.env.HOME ?? '~'));
}

/**
 * Loads the app in folder `spec` (relative to `cwd`): its module's default export (or `app`), made with
 * `defineApp` of `@framework-m/desk/app`. The app's folder is where its UI remote is served from
 * (`<dir>/static/mfe/`). A `reload` number imports the module as a new one (`?desk-reload=<n>`): with the
 * loader hook of `m serve --watch` the folder's own modules load afresh too, the packages it uses do not.
 */
export async function loadAppFromPath(
  spec: string,
  cwd = process.cwd(),
  reload?: number,
): Promise<InstalledApp> {
  const dir = appFolderOf(spec, cwd);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`app folder ${dir} does not exist`);
  const url = pathToFileURL(appModuleOf(dir));
  await enableTypeScriptModules();
  if (reload !== undefined) url.searchParams.set(APP_RELOAD_PARAM, String(reload));
  const mod = (await import(url.href)) as { default?: unknown; app?: unknown };
  const app = (mod.default ?? mod.app) as Partial<InstalledApp> | undefined;
  if (!app || typeof app.name !== 'string' || !Array.isArray(app.doctypes)) {
    throw new Error(`${dir}: the app module's default export is not an app (use defineApp)`);
  }
  return { ...(app as InstalledApp), dir };
}

/**
 * Loads the apps in order: built-in names and app folders. An unknown name throws `Error` naming the apps
 * that exist, so a typo in `tool.platform.apps` stops the start instead of silently serving less; two apps
 * of one name (a folder shadowing a built-in) throw too. `reload` loads the app folders afresh
 * ({@link loadAppFromPath}).
 */
export async function loadInstalledApps(
  specs: readonly string[],
  options: { reload?: number } = {},
): Promise<InstalledApp[]> {
  const unknown = specs.filter((n) => !isAppPath(n) && !Object.hasOwn(AVAILABLE_APPS, n));
  if (unknown.length > 0) {
    throw new Error(
      `unknown app(s) in tool.platform.apps: ${unknown.join(', ')} (available: ${Object.keys(AVAILABLE_APPS).join(', ')}, or a path to an app folder)`,
    );
  }
  const unique = [...new Set(specs)];
  const apps = await Promise.all(
    unique.map((spec) =>
      isAppPath(spec) ? loadAppFromPath(spec, process.cwd(), options.reload) : AVAILABLE_APPS[spec]!(),
    ),
  );
  const seen = new Set<string>();
  for (const app of apps) {
    if (seen.has(app.name)) throw new Error(`two installed apps are named "${app.name}"`);
    seen.add(app.name);
  }
  return apps;
}

/** The folder of an installed app: its own `dir` (an app from a path), else `<appsDir>/<name>`. */
export function appDirOf(app: Pick<InstalledApp, 'name' | 'dir'>, appsDir: string): string {
  return app.dir ?? join(appsDir, app.name);
}
