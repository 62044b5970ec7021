// The same remote built by Rspack (`@rspack/core`) with the enhanced plugin's Rspack entry: the contract is
// the bundler's Module Federation options, so only the loader differs from webpack.config.mjs.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';

const here = dirname(fileURLToPath(import.meta.url));

/** One shared singleton at a range; `loaded-first` below makes the Desk's already loaded copy the one used. */
const singleton = (requiredVersion) => ({ singleton: true, requiredVersion });

export default {
  mode: 'production',
  // No eval-based devtool: the Desk's Content-Security-Policy refuses eval.
  devtool: false,
  context: here,
  entry: {},
  target: 'web',
  resolve: { extensions: ['.tsx', '.ts', '.js'] },
  module: {
    rules: [
      {
        test: /\.tsx?$/,
        exclude: /node_modules/,
        loader: 'builtin:swc-loader',
        options: {
          jsc: {
            parser: { syntax: 'typescript', tsx: true },
            transform: { react: { runtime: 'automatic' } },
            target: 'es2022',
          },
        },
      },
      { test: /\.css$/, type: 'asset/source' },
    ],
  },
  output: {
    path: resolve(here, 'static', 'mfe'),
    publicPath: 'auto',
    uniqueName: 'gadgets',
    clean: true,
  },
  performance: { hints: false },
  plugins: [
    new ModuleFederationPlugin({
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
      manifest: true,
      dts: false,
    }),
  ],
};
