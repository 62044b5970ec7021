import type { InstalledApp } from './types';

/**
 * The apps this backend can install, by name, each loaded on use. `tool.platform.apps` (or `m serve --app`)
 * picks which of them a process installs. A new app adds one line here and a folder `backend/apps/<name>/`
 * with `app.ts` (its DocTypes and RPC methods) and, for a UI remote, `static/mfe/remoteEntry.js`.
 */
export const AVAILABLE_APPS: Record<string, () => Promise<InstalledApp>> = {
  crm: async () => (await import('./crm/app')).crmApp,
  stock: async () => (await import('./stock/app')).stockApp,
  support: async () => (await import('./support/app')).supportApp,
};

/**
 * Loads the named apps in order. An unknown name throws `Error` naming the apps that exist, so a typo in
 * `tool.platform.apps` stops the start instead of silently serving less.
 */
export async function loadInstalledApps(names: readonly string[]): Promise<InstalledApp[]> {
  const unknown = names.filter((n) => !Object.hasOwn(AVAILABLE_APPS, n));
  if (unknown.length > 0) {
    throw new Error(
      `unknown app(s) in tool.platform.apps: ${unknown.join(', ')} (available: ${Object.keys(AVAILABLE_APPS).join(', ')})`,
    );
  }
  const unique = [...new Set(names)];
  return Promise.all(unique.map((name) => AVAILABLE_APPS[name]!()));
}
