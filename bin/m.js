#!/usr/bin/env node
// The `m` command. The platform's Node code is TypeScript run through tsx, so there is no build step
// between editing the backend and running it. `m serve` runs from the bundle `npm run build` writes
// (dist/server/m.js) when it is newer than every source file: tsx's loader thread alone keeps about 60 MB
// resident in a long-running server (docs/performance.md#memory). A stale or missing bundle falls back to tsx;
// `m serve --build-missing` (`npm start`) builds first, so it runs from a fresh bundle.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = `${root}dist/server/m.js`;

/** True when no file under the bundled folders is newer than the bundle. */
function bundleIsCurrent() {
  if (!existsSync(bundle)) return false;
  const built = statSync(bundle).mtimeMs;
  const newer = (dir) =>
    readdirSync(dir, { withFileTypes: true }).some((entry) => {
      // Build outputs (an app's static/ remote) and dependencies are not bundled sources.
      if (entry.name === 'node_modules' || entry.name === 'static' || entry.name.startsWith('.'))
        return false;
      const path = `${dir}/${entry.name}`;
      return entry.isDirectory() ? newer(path) : statSync(path).mtimeMs > built;
    });
  return !['backend', 'src', 'package-lock.json'].some((name) => {
    const path = `${root}${name}`;
    if (!existsSync(path)) return false;
    return statSync(path).isDirectory() ? newer(path) : statSync(path).mtimeMs > built;
  });
}

const args = process.argv.slice(2);
// `m --bundle-current`: exit 0 when `m serve` would run from the bundle (the benchmarks ask).
if (args[0] === '--bundle-current') process.exit(bundleIsCurrent() ? 0 : 1);
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
let main;
if (args[0] === 'serve' && process.env.PLATFORM_SERVE_FROM_SOURCE !== '1' && bundleIsCurrent()) {
  ({ main } = await import(bundle));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(args);
