import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Configuration } from 'webpack';
import type { RemoteBuildEnv } from '../../webpack';

/** What a build asks of an app's webpack configuration: webpack's `mode`, and its `env` (`--env` values). */
export interface RemoteBuild {
  mode: 'production' | 'development';
  env: RemoteBuildEnv;
}

/**
 * The app's webpack configuration: its `webpack.config.ts` default export, an object or a function that
 * webpack calls with `env` and `{ mode }` (as its own CLI does). A scaffolded app exports a function and
 * hands `env.hot` on to `createRemoteConfig`.
 */
export async function loadRemoteConfig(dir: string, build: RemoteBuild): Promise<Configuration> {
  const file = join(dir, 'webpack.config.ts');
  if (!existsSync(file)) throw new Error(`${dir} has no webpack.config.ts (see "m new app")`);
  const mod = (await import(pathToFileURL(file).href)) as { default: unknown };
  const exported = mod.default;
  if (typeof exported !== 'function' && build.env.hot) {
    console.error(
      `m app dev: ${file} exports a configuration object, so it cannot be asked for hot updates; export a function of webpack's env that passes \`hot: env.hot\` to createRemoteConfig (see "m new app")`,
    );
  }
  const config = (
    typeof exported === 'function' ? await exported({ ...build.env }, { mode: build.mode }) : exported
  ) as Configuration;
  if (!config || typeof config !== 'object') throw new Error(`${file} exports no webpack configuration`);
  return config;
}
