#!/usr/bin/env node
// `npm run dev`: offline development. webpack-dev-server builds and serves, with no backend running:
//   /desk/                      the shell (development build with an injected dev __PLATFORM_CONFIG__)
//   /desk/assets/shell/*        the shell's chunks
//   /desk/assets/<app>/*        each sample app's UI remote (remoteEntry.js + chunks), built in memory
//   /mockServiceWorker.js       the MSW worker; mocks/browser.ts answers every API call (discovery,
//                               security, data, login) inside the browser
//
//   node scripts/dev.js [--port 5173] [--host 127.0.0.1]     (PORT / HOST work too)
//
// Exit codes: 0 stopped by Ctrl-C / SIGTERM, 1 failed to start, 2 usage error.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function parseArgs(argv) {
  const opts = { port: Number(process.env.PORT ?? 5173), host: process.env.HOST ?? '127.0.0.1' };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = inline ?? argv[++i];
    if (flag === '--port' && /^\d+$/.test(value ?? '')) opts.port = Number(value);
    else if (flag === '--host' && value) opts.host = value;
    else throw new Error(`unknown or incomplete argument "${argv[i]}"`);
  }
  return opts;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`dev: ${err.message}\nUsage: node scripts/dev.js [--port 5173] [--host 127.0.0.1]`);
    return 2;
  }
  // npm 11 skips msw's postinstall: generate the worker script when it is missing.
  if (!existsSync(join(root, 'public', 'mockServiceWorker.js'))) {
    console.log('dev: writing public/mockServiceWorker.js (msw init)');
    execFileSync(process.execPath, [require.resolve('msw/cli/index.js'), 'init', 'public/', '--save=false'], {
      cwd: root,
      stdio: 'inherit',
    });
  }
  const { tsImport } = await import('tsx/esm/api');
  const { default: webpackConfig } = await tsImport('../webpack.config.ts', import.meta.url);
  const { default: webpack } = await import('webpack');
  const { default: WebpackDevServer } = await import('webpack-dev-server');
  const configs = webpackConfig({ dev: true }, { mode: 'development' });
  const compiler = webpack(configs);
  const server = new WebpackDevServer(
    {
      host: opts.host,
      port: opts.port,
      hot: false,
      liveReload: true,
      // The MSW worker script must be served from the origin's root (its scope covers /desk/).
      static: { directory: join(root, 'public'), publicPath: '/', watch: false },
      historyApiFallback: { rewrites: [{ from: /^\/desk\/?$/, to: '/desk/assets/shell/index.html' }] },
      client: { overlay: { errors: true, warnings: false }, logging: 'warn' },
      setupMiddlewares(middlewares, devServer) {
        devServer.app.get('/', (_req, res) => res.redirect('/desk/'));
        return middlewares;
      },
    },
    compiler,
  );
  try {
    await server.start();
  } catch (err) {
    console.error(`dev: could not start: ${err.message}`);
    return 1;
  }
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  console.log(`dev: the Desk (offline, mocked API) on http://${opts.host}:${port}/desk/`);
  await new Promise((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.stop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`dev: ${err.stack ?? err}`);
    process.exit(1);
  },
);
