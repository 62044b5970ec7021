/**
 * webpack builds of the Desk (docs/mfe-teams.md#building):
 *
 * - `shell`: the Module Federation HOST into `dist/shell/` (`index.html` + content-hashed chunks), served by
 *   the backend under `/desk/assets/shell/`. It declares NO static `remotes`: remotes are registered at
 *   runtime from discovery (src/sdk/remotes).
 * - one REMOTE per sample app (`backend/apps/<app>/ui/`) into `backend/apps/<app>/static/mfe/`
 *   (`remoteEntry.js`, `mf-manifest.json` + hashed chunks), served under `/desk/assets/<app>/`, built with
 *   the same `createRemoteConfig` (src/webpack) a team outside this repository uses.
 *
 * Host and remotes share react, react-dom, @tanstack/react-query and @refinedev/core as singletons, so a
 * remote's Refine hooks see the shell's data provider and query cache.
 *
 * `--env only=shell,crm` limits the build to some targets; `--env dev` builds the offline-development
 * shell (MSW worker + an injected dev `__PLATFORM_CONFIG__`, see scripts/dev.js). `m app dev --offline`
 * builds the same shell around a team's app instead ({@link offlineAppShellConfig}).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModuleFederationPlugin } from '@module-federation/enhanced/webpack';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import webpack, { type Compiler, type Configuration } from 'webpack';
import { type PlatformConfigPayload, platformConfigMarkup } from './backend/desk/platform-config';
import {
  createRemoteConfig,
  FIRST_SCREEN_DEFERRED,
  FirstScreenPlugin,
  firstScreenFiles,
  hashedFilename,
  optimization,
  SHARED_SINGLETONS,
  sharedSingletons,
} from './src/webpack';

const root = import.meta.dirname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};

/** The libraries host and remotes must share one copy of (React context and the query cache live in them). */
export { SHARED_SINGLETONS };

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
  return sharedSingletons();
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
        // The Desk's stylesheets travel inside its JavaScript as text: in production without their comments
        // and layout whitespace (esbuild's CSS minifier), which the first screen would otherwise carry.
        {
          test: /\.css$/,
          type: 'asset/source',
          ...(production ? { loader: 'esbuild-loader', options: { loader: 'css', minify: true } } : {}),
        },
      ],
    },
    // terser with two passes: smaller than esbuild's output in gzip and brotli (src/webpack/minify.ts).
    optimization: optimization(production),
    performance: { hints: false },
    infrastructureLogging: { level: 'warn' },
    stats: 'errors-warnings',
    // The per-build cache keeps rebuilds (npm start --build-missing, e2e) fast on two cores.
    cache: { type: 'filesystem', name: `${name}-${production ? 'prod' : 'dev'}` },
  };
}

/**
 * Adds `<link rel="preload" as="script">` to the page for every first-screen chunk of the shell besides the
 * entry: the browser fetches them with `main.js` instead of after running it (one round trip less before the
 * first list).
 */
class PreloadFirstScreen {
  apply(compiler: Compiler): void {
    compiler.hooks.thisCompilation.tap('PreloadFirstScreen', (compilation) => {
      HtmlWebpackPlugin.getCompilationHooks(compilation).alterAssetTags.tap('PreloadFirstScreen', (data) => {
        const entry = new Set(
          [...compilation.entrypoints.values()].flatMap((e) => e.chunks.flatMap((c) => [...c.files])),
        );
        const files = firstScreenFiles(compilation, { role: 'host', deferred: FIRST_SCREEN_DEFERRED });
        for (const file of files.filter((f) => !entry.has(f))) {
          data.assetTags.meta.push({
            tagName: 'link',
            voidTag: true,
            meta: { plugin: 'PreloadFirstScreen' },
            attributes: { rel: 'preload', as: 'script', href: `${data.publicPath}${file}` },
          });
        }
        return data;
      });
    });
  }
}

/** The page with the offline-development `__PLATFORM_CONFIG__`, injected the way the backend injects its own. */
function withDevConfig(html: string, config: PlatformConfigPayload = DEV_PLATFORM_CONFIG): string {
  return html.replace('</head>', `${platformConfigMarkup(config)}</head>`);
}

/** The module a team's offline shell imports its app from (`m app dev --offline`, {@link offlineAppShellConfig}). */
export const OFFLINE_APP_MODULE = 'desk-offline-app';

function shellConfig(
  production: boolean,
  dev: boolean,
  offlineApp?: { name: string; module: string },
): Configuration {
  const devConfig = offlineApp ? { ...DEV_PLATFORM_CONFIG, coreServices: [offlineApp.name] } : undefined;
  const built = base(offlineApp ? 'shell-offline-app' : 'shell', production);
  return {
    ...built,
    ...(offlineApp
      ? { resolve: { ...built.resolve, alias: { [`${OFFLINE_APP_MODULE}$`]: offlineApp.module } } }
      : {}),
    entry: {
      main: offlineApp
        ? './src/shell/dev-app-entry.ts'
        : dev
          ? './src/shell/dev-entry.ts'
          : './src/shell/index.ts',
    },
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
        // The one federation runtime of the page: every remote is built with `externalRuntime` and uses it.
        // Remotes are registered by their `remoteEntry.js` (no manifest snapshots), and the shared modules
        // come from the Desk (remotes provide none), so no remote entry needs loading to pick a version.
        shareStrategy: 'loaded-first',
        runtimePlugins: [join(root, 'src', 'webpack', 'provide-federation-runtime.ts')],
        experiments: { optimization: { disableSnapshot: true, target: 'web' } },
        dts: false,
        manifest: false,
      }),
      new webpack.DefinePlugin({ __DESK_DEV__: JSON.stringify(dev) }),
      // first-screen.json: the files a DocType list runs, for the size budget (scripts/build.js).
      new FirstScreenPlugin({ role: 'host', deferred: FIRST_SCREEN_DEFERRED }),
      new HtmlWebpackPlugin({
        // public/index.html stays plain HTML: the backend serves it as the fallback page and injects the real
        // configuration itself. Offline development has no backend, so the dev build writes a fixed one in.
        ...(dev
          ? {
              templateContent: () =>
                withDevConfig(readFileSync(join(root, 'public', 'index.html'), 'utf8'), devConfig),
            }
          : { template: './public/index.html' }),
        filename: 'index.html',
        scriptLoading: 'defer',
      }),
      ...(production ? [new PreloadFirstScreen()] : []),
    ],
  };
}

function remoteConfig(app: string, production: boolean, dev: boolean): Configuration {
  // Each remote lists what it exposes in ui/exposes.json ({ "./views": "./views.ts", ... }).
  const exposes = JSON.parse(
    readFileSync(join(root, 'backend', 'apps', app, 'ui', 'exposes.json'), 'utf8'),
  ) as Record<string, string>;
  return createRemoteConfig({
    name: app,
    context: join(root, 'backend', 'apps', app),
    exposes: Object.fromEntries(
      Object.entries(exposes).map(([k, v]) => [k, `./ui/${v.replace(/^\.\//, '')}`]),
    ),
    mode: production ? 'production' : 'development',
    // The dev server is one origin and serves each build under its fixed public path.
    publicPath: dev ? `${ASSETS_BASE}/${app}/` : 'auto',
  });
}

/**
 * The offline Desk of a team's app (`m app dev --offline`, docs/mfe-teams.md#offline-development): the
 * development shell whose MSW worker runs the platform's API app with that app installed (imported from
 * `module`, its app module), and a dev `__PLATFORM_CONFIG__` naming it as the core service.
 */
export function offlineAppShellConfig(app: { name: string; module: string }): Configuration {
  return shellConfig(false, true, app);
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
