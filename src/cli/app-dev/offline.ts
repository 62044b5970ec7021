/**
 * `m app dev --offline` (`npm run dev -- --offline` in an app folder): the Desk with the app's own backend
 * running inside the browser, no server, database or NATS (docs/mfe-teams.md#offline-development). One
 * webpack-dev-server origin serves:
 *   /desk/                    the development shell, with a dev `__PLATFORM_CONFIG__` naming the app
 *   /desk/assets/shell/*      its chunks; its MSW worker runs the platform's API app with the app installed
 *   /desk/assets/<app>/*      the app's UI remote, built from its webpack.config.ts
 *   /mockServiceWorker.js     the MSW worker script (from the msw package)
 * An edit under the app folder rebuilds and reloads the page (the in-memory records start again).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Configuration } from 'webpack';
import { appModuleOf, loadAppFromPath } from '../../../backend/apps';
import { ROOT_DIR } from '../../../backend/roots/context';
import { loadRemoteConfig } from './remote-config';

const require = createRequire(import.meta.url);

/** Where the Desk's build serves each app's remote (the mocked manifests point there). */
const ASSETS_BASE = '/desk/assets';

/** The webpack builds of the offline Desk of the app in `dir`: the shell around it, and its remote. */
export async function offlineConfigs(dir: string): Promise<{ name: string; configs: Configuration[] }> {
  const app = await loadAppFromPath(dir);
  const { offlineAppShellConfig } = (await import(
    pathToFileURL(join(ROOT_DIR, 'webpack.config.ts')).href
  )) as typeof import('../../../webpack.config');
  const shell = offlineAppShellConfig({ name: app.name, module: appModuleOf(dir) });
  const remote = await loadRemoteConfig(dir, { mode: 'development', env: {} });
  // One origin serves every build: the remote under the path its mocked manifest names, in memory only
  // (the folder's static/mfe/ keeps the last `npm run build`).
  remote.output = { ...remote.output, publicPath: `${ASSETS_BASE}/${app.name}/`, clean: false };
  return { name: app.name, configs: [shell, remote] };
}

/** Runs the offline Desk of the app in `dir` until SIGINT/SIGTERM; resolves to the exit code. */
export async function devOffline(dir: string, port: number, host: string): Promise<number> {
  const { default: webpack } = await import('webpack');
  const { default: WebpackDevServer } = await import('webpack-dev-server');
  const { name, configs } = await offlineConfigs(dir);
  const worker = join(dirname(require.resolve('msw/package.json')), 'lib', 'mockServiceWorker.js');
  const server = new WebpackDevServer(
    {
      host,
      port,
      hot: false,
      liveReload: true,
      allowedHosts: 'all',
      static: false,
      historyApiFallback: { rewrites: [{ from: /^\/desk\/?$/, to: `${ASSETS_BASE}/shell/index.html` }] },
      client: { overlay: { errors: true, warnings: false }, logging: 'warn' },
      setupMiddlewares(middlewares, devServer) {
        devServer.app?.get('/', (_req, res) => res.redirect('/desk/'));
        // The worker's scope must cover /desk/: it is served from the origin's root.
        devServer.app?.get('/mockServiceWorker.js', (_req, res) => res.sendFile(worker));
        return middlewares;
      },
    },
    webpack(configs),
  );
  await server.start();
  const address = server.server?.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  console.log(
    `m app dev: the Desk (offline: ${name}'s backend runs in the browser) on http://${host}:${bound}/desk/ (Ctrl-C stops)`,
  );
  await new Promise<void>((resolveStop) => {
    process.once('SIGINT', () => resolveStop());
    process.once('SIGTERM', () => resolveStop());
  });
  await server.stop();
  return 0;
}
