// The gadgets UI remote from a plain webpack configuration: the Module Federation enhanced plugin, no
// createRemoteConfig. What the Desk requires of it (docs/mfe-teams.md#a-remote-from-your-own-bundler-config):
// the container named after the service, `./views` exposing `{ views, widgets }` as its default export, and
// React, React DOM, Refine and TanStack Query shared as singletons with ranges the Desk's versions satisfy.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModuleFederationPlugin } from '@module-federation/enhanced/webpack';

const here = dirname(fileURLToPath(import.meta.url));

/** One shared singleton at a range; `loaded-first` below makes the Desk's already loaded copy the one used. */
const singleton = (requiredVersion) => ({ singleton: true, requiredVersion });

export default {
  mode: 'production',
  // No eval-based devtool: the Desk's Content-Security-Policy refuses eval.
  devtool: false,
  context: here,
  // The container entry (remoteEntry.js) is the only entry.
  entry: {},
  target: 'web',
  resolve: { extensions: ['.tsx', '.ts', '.js'] },
  module: {
    rules: [
      {
        test: /\.tsx?$/,
        exclude: /node_modules/,
        loader: 'esbuild-loader',
        options: { target: 'es2022', jsx: 'automatic' },
      },
      // The stylesheet as text: src/styles.ts adds it to the page as style-loader would.
      { test: /\.css$/, type: 'asset/source' },
    ],
  },
  output: {
    path: resolve(here, 'static', 'mfe'),
    // Chunks load from wherever remoteEntry.js was loaded from.
    publicPath: 'auto',
    uniqueName: 'gadgets',
    clean: true,
  },
  performance: { hints: false },
  plugins: [
    new ModuleFederationPlugin({
      // The container's global name: the service's name.
      name: 'gadgets',
      filename: 'remoteEntry.js',
      exposes: { './views': './src/views.tsx' },
      shared: {
        react: singleton('^19.0.0'),
        'react/jsx-runtime': singleton('^19.0.0'),
        'react-dom': singleton('^19.0.0'),
        '@refinedev/core': singleton('^5.0.0'),
        '@tanstack/react-query': singleton('^5.0.0'),
      },
      shareStrategy: 'loaded-first',
      // mf-manifest.json beside remoteEntry.js: the Desk reads it before running the remote.
      manifest: true,
      dts: false,
    }),
  ],
};
