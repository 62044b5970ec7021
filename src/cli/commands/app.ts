import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DevBuildChannel } from '../app-dev/build-status';
import { loadRemoteConfig } from '../app-dev/remote-config';
import type { Command } from '../command';

export { loadRemoteConfig, type RemoteBuild } from '../app-dev/remote-config';

const HELP = `Usage: m app <build | dev | start> [options]

Works on the app in the current folder (one made by "m new app"):
  m app build [--missing]        Build its UI remote into static/mfe/ (--missing: only when out of date)
  m app dev [--port 3001]        Serve its UI remote with hot updates that keep state, for a Desk override;
                                 a failed build shows in the Desk over the remote
  m app dev --offline [--port 5173]
                                 The Desk with this app's backend running in the browser (MSW): no server
  m app start [m serve options]  Build what is missing, then serve a MONOLITH Desk with the platform's apps
                                 and this one; with --mode macroservice, run it as one service process

Options:
  --dir <path>   The app's folder (default the current folder)
  -h, --help     This help

Exit codes: 0 success, 1 failure, 2 usage error.`;

/** Newest modification time (ms) of the files under `paths`, skipping node_modules and build output. */
function newestMtime(paths: string[]): number {
  let newest = 0;
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    const info = statSync(path);
    if (info.isDirectory()) {
      for (const entry of readdirSync(path))
        if (!['node_modules', 'static', '.platform'].includes(entry)) visit(join(path, entry));
    } else if (info.mtimeMs > newest) newest = info.mtimeMs;
  };
  for (const path of paths) visit(path);
  return newest;
}

/** True when the app's remote is missing or older than its sources (ui/, webpack.config.ts, package.json). */
export function remoteOutOfDate(dir: string): boolean {
  const entry = join(dir, 'static', 'mfe', 'remoteEntry.js');
  if (!existsSync(entry)) return true;
  const sources = ['ui', 'webpack.config.ts', 'package.json', 'doctypes.ts'].map((p) => join(dir, p));
  return newestMtime(sources) > statSync(entry).mtimeMs;
}

/** Builds the remote of the app in `dir` with the platform's webpack; resolves to an exit code. */
export async function buildRemote(dir: string): Promise<number> {
  const { default: webpack } = await import('webpack');
  const config = await loadRemoteConfig(dir, { mode: 'production', env: {} });
  const started = Date.now();
  return new Promise((done) => {
    webpack(config, (err, stats) => {
      if (err || stats?.hasErrors()) {
        console.error(`m app build: the build failed:\n${err?.message ?? stats?.toString('errors-only')}`);
        done(1);
        return;
      }
      console.log(`m app build: static/mfe/ written in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      done(0);
    });
  });
}

async function dev(dir: string, port: number, host: string): Promise<number> {
  const { default: webpack } = await import('webpack');
  const { default: WebpackDevServer } = await import('webpack-dev-server');
  const config = await loadRemoteConfig(dir, { mode: 'development', env: { hot: true } });
  const compiler = webpack(config);
  // Each build's outcome goes to the Desk tabs overriding this remote (a failed build shows over its area).
  const builds = new DevBuildChannel(dir);
  builds.attach(compiler);
  const server = new WebpackDevServer(
    {
      host,
      port,
      hot: true,
      liveReload: false,
      allowedHosts: 'all',
      // The Desk loads the remote from another origin: its scripts and hot updates need CORS.
      headers: { 'Access-Control-Allow-Origin': '*' },
      // The client runs inside the Desk's page: it must connect back to this server, not the Desk's origin.
      client: { overlay: false, logging: 'warn', webSocketURL: `ws://${host}:${port}/ws` },
      static: false,
      setupMiddlewares: (middlewares) => [
        { name: 'desk-build-status', middleware: builds.handle },
        ...middlewares,
      ],
    },
    compiler,
  );
  await server.start();
  console.log(`m app dev: remote at http://${host}:${port}/remoteEntry.js (Ctrl-C stops)`);
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  builds.close();
  await server.stop();
  return 0;
}

async function start(dir: string, rest: string[]): Promise<number> {
  if (remoteOutOfDate(dir)) {
    const code = await buildRemote(dir);
    if (code !== 0) return code;
  }
  const modeIndex = rest.indexOf('--mode');
  const mode = (modeIndex >= 0 ? rest[modeIndex + 1] : process.env.PLATFORM_MODE)?.toLowerCase();
  const { serveCommand } = await import('./serve');
  // MACROSERVICE: this app alone, as a service joining the deployment on PLATFORM_NATS_URL.
  if (mode === 'macroservice') return serveCommand.run([...rest, '--app', dir]);
  const apps = process.env.PLATFORM_APPS?.split(',').filter(Boolean) ?? ['crm', 'stock'];
  // --watch: a new or changed DocType of this app is served without a restart.
  return serveCommand.run([
    ...apps.flatMap((a) => ['--app', a]),
    '--app',
    dir,
    '--build-missing',
    '--watch',
    ...rest,
  ]);
}

/** `m app build | dev | start`: the app in the current folder. */
export const appCommand: Command = {
  async run(argv) {
    const [sub, ...rest] = argv;
    if (!sub || sub === '--help' || sub === '-h') {
      console.log(HELP);
      return sub ? 0 : 2;
    }
    const dirIndex = rest.indexOf('--dir');
    const dir = resolve(dirIndex >= 0 ? (rest[dirIndex + 1] ?? '.') : '.');
    if (dirIndex >= 0) rest.splice(dirIndex, 2);
    try {
      if (sub === 'build') {
        const { values } = parseArgs({ args: rest, options: { missing: { type: 'boolean' } } });
        if (values.missing && !remoteOutOfDate(dir)) {
          console.log('m app build: static/mfe/ is up to date');
          return 0;
        }
        return await buildRemote(dir);
      }
      if (sub === 'dev') {
        const { values } = parseArgs({
          args: rest,
          options: { port: { type: 'string' }, host: { type: 'string' }, offline: { type: 'boolean' } },
        });
        const host = values.host ?? '127.0.0.1';
        if (values.offline) {
          const { devOffline } = await import('../app-dev/offline');
          return await devOffline(dir, Number(values.port ?? process.env.PORT ?? 5173), host);
        }
        return await dev(dir, Number(values.port ?? process.env.PORT ?? 3001), host);
      }
      if (sub === 'start') return await start(dir, rest);
    } catch (err) {
      console.error(`m app ${sub}: ${(err as Error).message}`);
      return 1;
    }
    console.error(`m app: unknown subcommand "${sub}"\n\n${HELP}`);
    return 2;
  },
};
