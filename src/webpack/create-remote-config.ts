import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { ModuleFederationPlugin } from '@module-federation/enhanced/webpack';
import webpack, { type Configuration } from 'webpack';
import { FirstScreenPlugin } from './first-screen-plugin';
import { optimization } from './minify';
import { QuietAutoPublicPathNotice } from './quiet-auto-public-path';
import { PLATFORM_ROOT, sharedSingletons } from './shared';

/** The part of the manifest plugin's stats that {@link withSharedVersions} completes. */
interface ManifestStats {
  shared: Array<Record<string, unknown> & { name: string }>;
}

/**
 * States every shared singleton in the manifest at the Desk version the remote was built against. With
 * `import: false` the plugin lists only the packages a remote's code imports, and without a version of its
 * own; the manifest still says which versions the remote expects from the Desk.
 */
function withSharedVersions(stats: ManifestStats, name: string): void {
  const singletons = sharedSingletons('remote');
  const listed = new Map(stats.shared.map((s) => [s.name, s]));
  const empty = { js: { async: [], sync: [] }, css: { async: [], sync: [] } };
  const shared = Object.entries(singletons).map(([pkg, entry]) => ({
    id: `${name}:${pkg}`,
    shareScope: 'default',
    eager: false,
    assets: empty,
    usedIn: [],
    usedExports: [],
    fallback: '',
    ...listed.get(pkg),
    name: pkg,
    singleton: true,
    import: false,
    requiredVersion: entry.requiredVersion,
    version: entry.requiredVersion || undefined,
  }));
  stats.shared = shared;
}

const require = createRequire(import.meta.url);

/** Name of the manifest every remote build writes next to `remoteEntry.js`. */
export const REMOTE_MANIFEST_FILE = 'mf-manifest.json';

/**
 * The `env` webpack gives a configuration function (`--env` values): `m app dev` passes `{ hot: true }`, as
 * `webpack serve --env hot` does, and an app's webpack.config.ts hands `hot` on to {@link createRemoteConfig}.
 */
export interface RemoteBuildEnv {
  /** Serve with hot updates (`m app dev`). */
  hot?: boolean;
}

/** Options of {@link createRemoteConfig}. */
export interface RemoteConfigOptions {
  /** The service name: the container's global name and the `<app>` the Desk registers it under. */
  name: string;
  /** Exposed module -> source file, relative to `context` (`{ './views': './ui/views.ts' }`). */
  exposes: Record<string, string>;
  /** The app's folder; default the current directory. */
  context?: string;
  /** Output folder; default `<context>/static/mfe` (where the platform serves an app's remote from). */
  outputPath?: string;
  /**
   * Default `production` (minified, content-hashed chunks), or `development` (unminified) with `hot`.
   */
  mode?: 'production' | 'development';
  /**
   * Hot updates, for `m app dev` (which passes `hot` in webpack's `env`, see {@link RemoteBuildEnv}): in a
   * development build the `./views` module and the `.tsx` components accept hot updates and tell the Desk.
   * Default false.
   */
  hot?: boolean;
  /**
   * Where chunks load from; default `auto` (relative to wherever `remoteEntry.js` was loaded from, so the
   * same build works on the Desk's origin and on a service's own).
   */
  publicPath?: string;
  /** webpack's filesystem cache name; default `<name>-<mode>`. */
  cacheName?: string;
  /** Clear the output folder before writing; default true. */
  clean?: boolean;
}

/**
 * Content-hashed names for entry chunks. The federation runtime asks for an entry chunk's file name before
 * hashes exist (only to compute its directory); it gets the unhashed name then, the real one at emit time.
 */
export function hashedFilename(pathData: { chunk?: { contentHash?: Record<string, string> } }): string {
  return pathData.chunk?.contentHash?.javascript ? '[name].[contenthash:10].js' : '[name].js';
}

/**
 * A complete webpack configuration for one UI remote: a Module Federation container named `name` assigned
 * to `window[name]`, `remoteEntry.js` as its only entry, the Desk's shared singletons at the Desk's exact
 * versions, `publicPath: 'auto'`, content-hashed chunks in production, and `mf-manifest.json` (exposes,
 * shared packages and versions) beside the entry. TypeScript and TSX compile with esbuild.
 *
 * Modules the app does not install itself (react, @refinedev/core, ...) resolve from the platform's own
 * `node_modules`, so a remote bundles the same versions the Desk runs.
 *
 * @example
 * // webpack.config.ts of an app: a function, so that `m app dev` can ask for hot updates through `env`
 * import { createRemoteConfig, type RemoteBuildEnv } from '@framework-m/desk/webpack';
 * export default (env: RemoteBuildEnv = {}) =>
 *   createRemoteConfig({ name: 'notes', exposes: { './views': './ui/views.ts' }, hot: env.hot });
 */
export function createRemoteConfig(options: RemoteConfigOptions): Configuration {
  const context = resolve(options.context ?? process.cwd());
  const hot = options.hot ?? false;
  const mode = options.mode ?? (hot ? 'development' : 'production');
  const production = mode === 'production';
  const views = options.exposes['./views'];
  // Hot updates (m app dev): the views module tells the Desk, components keep their state.
  const hotRules =
    !production && views && hot
      ? [
          {
            test: resolve(context, views),
            enforce: 'pre' as const,
            loader: join(import.meta.dirname, 'hot-views-loader.cjs'),
            options: { service: options.name },
          },
          {
            test: /\.tsx$/,
            exclude: /node_modules/,
            enforce: 'pre' as const,
            loader: join(import.meta.dirname, 'hot-components-loader.cjs'),
            options: { service: options.name },
          },
        ]
      : [];
  const fromContext = (path: string) => (isAbsolute(path) ? path : `./${path.replace(/^\.\//, '')}`);
  return {
    name: options.name,
    mode: production ? 'production' : 'development',
    // No eval-based source maps: the Desk page's Content-Security-Policy allows no eval, and a developer's
    // dev build runs inside that page (docs/security.md#desk-page-headers).
    devtool: production ? false : 'cheap-module-source-map',
    context,
    target: 'web',
    // No entry of its own: `remoteEntry.js` is the only entry, and every exposed module is loaded through it
    // asynchronously after the share scope is initialised (the async boundary Module Federation needs).
    entry: {},
    resolve: {
      extensions: ['.tsx', '.ts', '.js', '.mjs'],
      modules: ['node_modules', join(PLATFORM_ROOT, 'node_modules')],
    },
    module: {
      rules: [
        ...hotRules,
        {
          test: /\.[cm]?tsx?$/,
          exclude: /node_modules/,
          loader: require.resolve('esbuild-loader'),
          options: { target: 'es2022', jsx: 'automatic' },
        },
        { test: /\.css$/, type: 'asset/source' },
      ],
    },
    output: {
      path: options.outputPath ?? join(context, 'static', 'mfe'),
      publicPath: options.publicPath ?? 'auto',
      filename: production ? hashedFilename : '[name].js',
      chunkFilename: production ? '[name].[contenthash:10].js' : '[name].js',
      // A unique global so several remotes' webpack runtimes never collide on one page.
      uniqueName: `desk_remote_${options.name}`,
      clean: options.clean ?? true,
    },
    // terser with two passes: smaller than esbuild's output in gzip and brotli (./minify.ts). A hot build
    // that fails emits nothing and leaves webpack's records as they were: the page keeps running the last
    // good build (the Desk shows the errors over it), and the fix arrives as one hot update from that build.
    optimization: { ...optimization(production), ...(hotRules.length > 0 ? { emitOnErrors: false } : {}) },
    performance: { hints: false },
    infrastructureLogging: { level: 'warn' },
    stats: 'errors-warnings',
    cache: {
      type: 'filesystem',
      name: options.cacheName ?? `${options.name}-${production ? 'prod' : 'dev'}`,
    },
    plugins: [
      // Before the federation plugin: its manifest part logs the notice while it is applied.
      ...(options.publicPath === undefined || options.publicPath === 'auto'
        ? [new QuietAutoPublicPathNotice()]
        : []),
      new ModuleFederationPlugin({
        name: options.name,
        filename: 'remoteEntry.js',
        // `window[name] = container`, not a top-level `var`: the minifier wraps each file in a function and
        // renames its top-level names, which would hide the container from the Desk's runtime.
        library: { type: 'window', name: options.name },
        exposes: Object.fromEntries(Object.entries(options.exposes).map(([k, v]) => [k, fromContext(v)])),
        // The Desk's copies only: a remote bundles neither the shared libraries nor the federation runtime
        // (the Desk's page provides both, docs/performance.md#the-first-screen).
        shared: sharedSingletons('remote'),
        shareStrategy: 'loaded-first',
        experiments: { externalRuntime: true, optimization: { disableSnapshot: true, target: 'web' } },
        dts: false,
        manifest: {
          fileName: REMOTE_MANIFEST_FILE,
          additionalData: ({ stats }) => {
            withSharedVersions(stats as unknown as ManifestStats, options.name);
          },
        },
      }),
      new webpack.DefinePlugin({ __DESK_DEV__: 'false' }),
      // first-screen.json: remoteEntry.js and the `./views` chunks a list route of this app loads.
      new FirstScreenPlugin({ role: 'remote' }),
    ],
  };
}
