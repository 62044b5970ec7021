#!/usr/bin/env node
// The `m` command. The platform's Node code is TypeScript run through tsx, so there is no build step
// between editing the backend and running it. Commands run from a bundle instead while it is newer than
// every source it was built from (`npm run build` writes both; `npm start` builds what is missing): `m serve`,
// `m user`, `m keys`, `m audit`, `m release` and `m types` from dist/server/m.js, since tsx's loader thread
// alone keeps about 60 MB resident in a long-running server (docs/performance.md#memory) and costs a short
// command most of its start (about 0.7 s of CPU through tsx against 0.2 s from the bundle), and `m benchmark`
// from the built harness dist/benchmarks/load-test.js, since through tsx a load test would start about 1.5 s
// of CPU later and with that loader beside it (docs/load-testing.md#the-whole-process). A command that then
// imports a team's TypeScript app registers tsx itself. `m new` and `m app` run through tsx: they work on a
// team's app folder with the platform's TypeScript sources (templates, webpack helpers) that the app itself
// imports. A stale or missing bundle falls back to tsx.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Each bundle, and what it is built from: folders (every file below) and files of the repository. */
const BUNDLES = {
  server: { entry: `${root}dist/server/m.js`, sources: ['backend', 'src', 'package-lock.json'] },
  harness: { entry: `${root}dist/benchmarks/load-test.js`, sources: ['src', 'package-lock.json'] },
};

/** True when no file the bundle is built from is newer than it. */
function bundleIsCurrent({ entry, sources }) {
  if (!existsSync(entry)) return false;
  const built = statSync(entry).mtimeMs;
  const newer = (dir) =>
    readdirSync(dir, { withFileTypes: true }).some((item) => {
      // Build outputs (an app's static/ remote) and dependencies are not bundled sources.
      if (item.name === 'node_modules' || item.name === 'static' || item.name.startsWith('.')) return false;
      const path = `${dir}/${item.name}`;
      return item.isDirectory() ? newer(path) : statSync(path).mtimeMs > built;
    });
  return !sources.some((name) => {
    const path = `${root}${name}`;
    if (!existsSync(path)) return false;
    return statSync(path).isDirectory() ? newer(path) : statSync(path).mtimeMs > built;
  });
}

/** The commands run from the server's bundle while it is current. */
const FROM_SERVER_BUNDLE = new Set(['serve', 'user', 'keys', 'audit', 'release', 'types']);

const args = process.argv.slice(2);
// `m --bundle-current [server|harness]`: exit 0 when `m serve` (or `m benchmark`) would run from its bundle
// (the build and the benchmarks ask).
if (args[0] === '--bundle-current') process.exit(bundleIsCurrent(BUNDLES[args[1] ?? 'server']) ? 0 : 1);
if (args[0] === 'serve' && process.env.PLATFORM_GROW_YOUNG_GENERATION !== '1') {
  // V8's young generation starts at 2 x 1 MB and doubles whenever a scavenge finds much of it alive, which
  // loading the modules and opening the database do, up to 2 x 16 MB that then stay resident. A server keeps
  // little alive between requests, so it stays at the start size until the server has started; then
  // `m serve` lets it grow under load (src/cli/serve/young-generation.ts, docs/performance.md#memory).
  // PLATFORM_GROW_YOUNG_GENERATION=1 keeps V8's default. Read by V8 on each growth, so it is set before any.
  setFlagsFromString('--semi-space-growth-factor=1');
}
if (args[0] === 'serve' && args.includes('--build-missing') && existsSync(`${root}scripts/build.js`)) {
  // `npm start` builds what is missing before choosing how to run, so even the first start on a fresh clone
  // runs from the bundle it has just written (through tsx it would hold about 80 MB more). The flag is then
  // dropped: `m serve` itself would only find everything built.
  args.splice(args.indexOf('--build-missing'), 1);
  // `--verbose` stays for `m serve` as well, which accepts it.
  const verbose = args.includes('--verbose') ? ['--verbose'] : [];
  const build = spawnSync(process.execPath, [`${root}scripts/build.js`, '--missing', ...verbose], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) console.error('m serve: the build failed; serving without it.');
}
if (args[0] === 'benchmark' && bundleIsCurrent(BUNDLES.harness)) {
  // The built harness reads its arguments after its own path, as `node dist/benchmarks/load-test.js` is
  // run, and sets the exit code itself.
  process.argv.splice(2, 1);
  await import(BUNDLES.harness.entry);
} else {
  let main;
  if (
    FROM_SERVER_BUNDLE.has(args[0]) &&
    !(args[0] === 'serve' && process.env.PLATFORM_SERVE_FROM_SOURCE === '1') &&
    bundleIsCurrent(BUNDLES.server)
  ) {
    ({ main } = await import(BUNDLES.server.entry));
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../src/cli/main.ts'));
  }
  process.exitCode = await main(args);
}
