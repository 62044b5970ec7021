import { createRequire } from 'node:module';
import type { Compiler, Configuration } from 'webpack';

/**
 * terser's options for production JavaScript: two compress passes and `pure_getters` (reading a property
 * has no side effect in the Desk's code and its libraries), so unused reads go and more code inlines than
 * with one pass. Legal comments (`/*!`, `@license`, `@preserve`) stay inline; all others go
 * (docs/performance.md#minification).
 */
export const TERSER_OPTIONS = {
  ecma: 2020,
  compress: { passes: 2, pure_getters: true, ecma: 2020 },
  mangle: true,
  format: { comments: /^!|@license|@preserve/i, ecma: 2020 },
} as const;

/** The constructor of webpack's own terser plugin (a dependency of webpack, loaded where webpack finds it). */
type MinimizerPlugin = new (options: {
  extractComments: boolean;
  terserOptions: typeof TERSER_OPTIONS;
}) => { apply(compiler: Compiler): void };

function terserPlugin(): { apply(compiler: Compiler): void } {
  const fromWebpack = createRequire(createRequire(import.meta.url).resolve('webpack'));
  const Plugin = fromWebpack('minimizer-webpack-plugin') as MinimizerPlugin;
  return new Plugin({ extractComments: false, terserOptions: TERSER_OPTIONS });
}

/**
 * The `optimization` of a build: in production, module concatenation, `process.env.NODE_ENV` defined as
 * `'production'` in every module (development-only branches of the libraries drop out), and terser with
 * {@link TERSER_OPTIONS} (no `.LICENSE.txt` files); in development, no minification.
 */
export function optimization(production: boolean): NonNullable<Configuration['optimization']> {
  if (!production) return { minimize: false, nodeEnv: 'development' };
  return {
    minimize: true,
    nodeEnv: 'production',
    concatenateModules: true,
    usedExports: true,
    sideEffects: true,
    minimizer: [terserPlugin()],
  };
}
