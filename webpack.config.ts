/**
 * webpack builds of the Desk (docs/mfe-teams.md#building):
 *
 * - `shell`: the Module Federation HOST into `dist/shell/` (`index.html` + content-hashed chunks), served by
 *   the backend under `/desk/assets/shell/`. It declares NO static `remotes`: remotes are registered at
 *   runtime from discovery (src/sdk/remotes).
 * - one REMOTE per sample app (`backend/apps/<app>/ui/`) into `backend/apps/<app>/static/mfe/`
 *   (`remoteEntry.js` + hashed chunks), served under `/desk/assets/<app>/`.
 *
 * Host and remotes share react, react-dom, @tanstack/react-query and @refinedev/core as singletons, so a
 * remote's Refine hooks see the shell's data provider and query cache.
 *
 * `--env only=shell,crm` limits the build to some targets; `--env dev` builds the offline-development
 * shell (MSW worker + an injected dev `__PLATFORM_CONFIG__`, see scripts/dev.js).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModuleFederationPlugin } from '@module-federation/enhanced/webpack';
import { EsbuildPlugin } from 'esbuild-loader';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import webpack, { type Configuration } from 'webpack';
import { type PlatformConfigPayload, platformConfigMarkup } from './backend/desk/platform-config';

const root = import.meta.dirname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};

/** The libraries host and remotes must share one copy of (React context and the query cache live in them). */
export const SHARED_SINGLETONS = ['react', 'react-dom', '@tanstack/react-query', '@refinedev/core'] as const;

/** Where each build's files are served from (the backend's desk routes). */
export const ASSETS_BASE = '/desk/assets';

/** Sample apps that ship a UI remote: every `backend/apps/<app>/ui/exposes.json`. */
export function remoteApps(): string[] {
  const appsDir = join(root, 'backend', 'apps');
  if (!existsSync(appsDir)) return [];
  return readdirSync(appsDir)
    .filter((app) => existsSync(join(appsDir, app, 'ui', 'exposes.json')))
    .sort();
}

/**
 * The dev-mode `__PLATFORM_CONFIG__` (the backend injects the real one,
 * docs/http-api.md#desk-configuration-payload).
 */
export const DEV_PLATFORM_CONFIG: PlatformConfigPayload = {
  mode: 'monolith',
  gatewayUrl: '',
  deskBase: '/desk/',
  coreServices: ['crm', 'stock', 'support'],
  securityConfigUrl: '/api/v1/security/config',
  version: `${pkg.version}-dev`,
};

function shared() {
  const entries: Record<string, { singleton: true; requiredVersion: string; eager?: boolean }> = {};
  for (const name of SHARED_SINGLETONS) {
    entries[name] = { singleton: true, requiredVersion: pkg.dependencies[name] ?? false };
  }
  // The automatic JSX runtime imports these subpaths; they must resolve to the one shared React.
  entries['react/jsx-runtime'] = { singleton: true, requiredVersion: pkg.dependencies.react };
  entries['react-dom/client'] = { singleton: true, requiredVersion: pkg.dependencies['react-dom'] };
  return entries;
}

/**
 * Content-hashed names for entry chunks. The federation runtime asks for an entry chunk's file name before
 * hashes exist (only to compute its directory); it gets the unhashed name then, the real one at emit time.
 */
function hashedFilename(pathData: { chunk?: { contentHash?: Record<string, string> } }): string {
  return pathData.chunk?.contentHash?.javascript ? '[name].[contenthash:10].js' : '[name].js';
}

interface BuildEnv {
  only?: string;
  dev?: boolean;
  production?: boolean;
}

function base(name: string, production: boolean): Configuration {
  return {
    name,
    mode: production ? 'production' : 'development',
    devtool: production ? false : 'eval-cheap-module-source-map',
    context: root,
    target: 'web',
    resolve: { extensions: ['.tsx', '.ts', '.js', '.mjs'] },
    module: {
      rules: [
        {
          test: /\.[cm]?tsx?$/,
          exclude: /node_modules/,
          loader: 'esbuild-loader',
          options: { target: 'es2022', jsx: 'automatic' },
        },
        { test: /\.css$/, type: 'asset/source' },
      ],
    },
    // esbuild minifies far faster than terser on two cores; license comments stay inline (no .LICENSE.txt).
    optimization: { minimizer: [new EsbuildPlugin({ target: 'es2022', legalComments: 'inline' })] },
    performance: { hints: false },
    infrastructureLogging: { level: 'warn' },
    stats: 'errors-warnings',
    // The per-build cache keeps rebuilds (npm start --build-missing, e2e) fast on two cores.
    cache: { type: 'filesystem', name: `${name}-${production ? 'prod' : 'dev'}` },
  };
}

/** The page with the offline-development `__PLATFORM_CONFIG__`, injected the way the backend injects its own. */
function withDevConfig(html: string): string {
  return html.replace('</head>', `${platformConfigMarkup(DEV_PLATFORM_CONFIG)}</head>`);
}

function shellConfig(production: boolean, dev: boolean): Configuration {
  return {
    ...base('shell', production),
    entry: { main: dev ? './src/shell/dev-entry.ts' : './src/shell/index.ts' },
    output: {
      path: join(root, 'dist', 'shell'),
      publicPath: `${ASSETS_BASE}/shell/`,
      filename: production ? hashedFilename : '[name].js',
      chunkFilename: production ? '[name].[contenthash:10].js' : '[name].js',
      clean: true,
    },
    plugins: [
      new ModuleFederationPlugin({
        name: 'desk_shell',
        shared: shared(),
        dts: false,
        manifest: false,
      }),
      new webpack.DefinePlugin({ __DESK_DEV__: JSON.stringify(dev) }),
      new HtmlWebpackPlugin({
        // public/index.html stays plain HTML: the backend serves it as the fallback page and injects the real
        // configuration itself. Offline development has no backend, so the dev build writes a fixed one in.
        ...(dev
          ? { templateContent: () => withDevConfig(readFileSync(join(root, 'public', 'index.html'), 'utf8')) }
          : { template: './public/index.html' }),
        filename: 'index.html',
        scriptLoading: 'defer',
      }),
    ],
  };
}

function remoteConfig(app: string, production: boolean, dev: boolean): Configuration {
  const ui = `./backend/apps/${app}/ui`;
  const exposesFile = join(root, 'backend', 'apps', app, 'ui', 'exposes.json');
  // Each remote lists what it exposes in ui/exposes.json ({ "./views": "./views.ts", ... }).
  const exposes = JSON.parse(readFileSync(exposesFile, 'utf8')) as Record<string, string>;
  return {
    ...base(app, production),
    // No entry of its own: `remoteEntry.js` is the only entry, and every exposed module is loaded through it
    // asynchronously after the share scope is initialised (the async boundary Module Federation needs).
    entry: {},
    output: {
      path: join(root, 'backend', 'apps', app, 'static', 'mfe'),
      // Chunks load from wherever remoteEntry.js was loaded from: the Desk's own origin in MONOLITH, the
      // service's origin in MACROSERVICE (whose manifest URL points at the service, not the gateway). The dev
      // server is one origin and serves each build under its fixed public path.
      publicPath: dev ? `${ASSETS_BASE}/${app}/` : 'auto',
      filename: production ? hashedFilename : '[name].js',
      chunkFilename: production ? '[name].[contenthash:10].js' : '[name].js',
      // A unique global so several remotes' webpack runtimes never collide on one page.
      uniqueName: `desk_remote_${app}`,
      clean: true,
    },
    plugins: [
      new ModuleFederationPlugin({
        name: app,
        filename: 'remoteEntry.js',
        // `window[app] = container`, not a top-level `var`: the minifier wraps each file in a function and
        // renames its top-level names, which would hide the container from the host's runtime.
        library: { type: 'window', name: app },
        exposes: Object.fromEntries(
          Object.entries(exposes).map(([k, v]) => [k, `${ui}/${v.replace(/^\.\//, '')}`]),
        ),
        shared: shared(),
        dts: false,
        manifest: false,
      }),
      new webpack.DefinePlugin({ __DESK_DEV__: 'false' }),
    ],
  };
}

/** webpack's entry point: the list of builds selected by `--env`. */
export default function config(env: BuildEnv = {}, argv: { mode?: string } = {}): Configuration[] {
  const dev = Boolean(env.dev);
  const production = !dev && (argv.mode ?? 'production') === 'production';
  const all = ['shell', ...remoteApps()];
  const only = env.only ? env.only.split(',').map((s) => s.trim()) : all;
  const unknown = only.filter((t) => !all.includes(t));
  if (unknown.length > 0)
    throw new Error(`Unknown build target(s): ${unknown.join(', ')} (known: ${all.join(', ')})`);
  return only.map((target) =>
    target === 'shell' ? shellConfig(production, dev) : remoteConfig(target, production, dev),
  );
}
