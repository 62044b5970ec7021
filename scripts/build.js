#!/usr/bin/env node
// `npm run build`: bundles the `m` command (dist/server/) and the load-test harness (dist/benchmarks/), and
// builds the Desk shell (dist/shell/) and every sample app's UI remote
// (backend/apps/<app>/static/mfe/) with webpack in production mode, then checks the outputs and the
// JavaScript size budget. Prints what it builds; any failure exits non-zero with the reason.
//
//   node scripts/build.js                 build everything
//   node scripts/build.js --missing       build only the targets whose output is missing or older than its
//                                         sources (npm start, the end-to-end tests)
//   node scripts/build.js --only shell,crm
//   node scripts/build.js --verbose       also print the first screen's size against its budget
//
// Each step (the server and harness bundles, the shell, each app's remote) prints a line when it is done
// or found up to date.
//
// Exit codes: 0 built (or nothing to build), 1 build failed or an output is missing, 2 usage error,
// 3 the size budget is exceeded (not with --missing, see checkBudget).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/**
 * Budget of the first screen's JavaScript in each encoding the server sends (brotli to a client that accepts
 * br, gzip to one that accepts only gzip): the files the shell's first DocType list runs plus the heaviest
 * remote's entry and `./views` module, each as listed in its build's first-screen.json
 * (docs/performance.md#the-budget). The build fails when either encoding is above it.
 */
export const FIRST_SCREEN_BUDGET = 150 * 1024;

/** The first screen's budget in brotli bytes ({@link FIRST_SCREEN_BUDGET}). */
export const FIRST_SCREEN_BUDGET_BROTLI = FIRST_SCREEN_BUDGET;

/**
 * The first screen's budget in gzip bytes: 155 KB. gzip makes the same files about 15% larger than brotli, and
 * the Desk's stylesheet (light and dark colour tokens) travels inside its JavaScript, so one number for both
 * encodings made gzip alone decide; browsers are sent brotli, held to {@link FIRST_SCREEN_BUDGET}.
 */
export const FIRST_SCREEN_BUDGET_GZIP = 155 * 1024;

/** The encodings the budget applies to, each with its limit. */
const BUDGETS = { brotli: FIRST_SCREEN_BUDGET_BROTLI, gzip: FIRST_SCREEN_BUDGET_GZIP };

/** The list of first-screen files each build writes (src/webpack/first-screen-plugin.ts). */
const FIRST_SCREEN_FILE = 'first-screen.json';

/** Below this size the server sends a file as it is (the threshold of precompress and of the server). */
const COMPRESS_MIN_BYTES = 1024;

/** Files worth precompressing (the server answers them in brotli or gzip by Accept-Encoding). */
const COMPRESSIBLE = /\.(js|mjs|css|html|json|map|svg|txt)$/;

/**
 * Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip -9) next to every compressible file of at
 * least 1 KB in `dir`, so the server sends compressed bytes without compressing at run time
 * (docs/performance.md#compression). Returns the number of files compressed.
 */
export function precompress(dir) {
  let count = 0;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (COMPRESSIBLE.test(entry.name) && statSync(path).size >= 1024) {
        const body = readFileSync(path);
        writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
        count++;
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return count;
}

/**
 * Bundles the `m` command for `m serve` into dist/server/m.js with esbuild (dependencies stay external), so a
 * server runs without tsx's loader thread (docs/performance.md#memory). bin/m.js uses it only while it is
 * newer than every source file. The bundle is split at every dynamic import (chunks next to it in dist/server/): each
 * subcommand, MONOLITH and MACROSERVICE, PGlite and pg are chunks of their own, so `m serve` loads neither
 * the load-test harness, nor the NATS client in MONOLITH, nor the driver of the database it does not use.
 * Without splitting, esbuild hoists every external import of the whole bundle to the top of the one file,
 * and a server would load them all at start. `outdir` must be two folders below the repository, like
 * dist/server/: the modules find the repository by their depth. Returns false when esbuild failed.
 */
export function buildServerBundle(outdir = join(root, 'dist', 'server')) {
  try {
    rmSync(outdir, { recursive: true, force: true });
    require('esbuild').buildSync({
      entryPoints: { m: join(root, 'src', 'cli', 'main.ts') },
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
      outdir,
      // Next to the entry: modules find the repository by their depth (`import.meta.dirname`/../..).
      chunkNames: '[name]-[hash]',
    });
    // bin/m.js compares the sources with the entry's time: it is written last, like the chunks it needs.
    const now = new Date();
    utimesSync(join(outdir, 'm.js'), now, now);
    return true;
  } catch {
    return false;
  }
}

/** Every build target and the file that proves it was built. */
export function targets() {
  const appsDir = join(root, 'backend', 'apps');
  const apps = existsSync(appsDir)
    ? readdirSync(appsDir)
        .filter((app) => existsSync(join(appsDir, app, 'ui', 'exposes.json')))
        .sort()
    : [];
  // Every build reads the shared sources (the SDK and the shell's contracts, the webpack config, the locked
  // dependencies); a remote also reads its app's ui/ folder.
  const shared = [
    'src/sdk',
    'src/shell',
    'src/webpack',
    'public/index.html',
    'webpack.config.ts',
    'package.json',
    'package-lock.json',
  ];
  return [
    {
      name: 'shell',
      output: join(root, 'dist', 'shell'),
      marker: join(root, 'dist', 'shell', 'index.html'),
      sources: shared.map((p) => join(root, p)),
    },
    ...apps.map((app) => {
      const output = join(appsDir, app, 'static', 'mfe');
      const sources = [...shared.map((p) => join(root, p)), join(appsDir, app, 'ui')];
      return { name: app, output, marker: join(output, 'remoteEntry.js'), sources };
    }),
  ];
}

/** Newest modification time (ms) of the files under `paths` (missing paths count as 0). */
function newestMtime(paths) {
  let newest = 0;
  const visit = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) if (entry !== 'node_modules') visit(join(path, entry));
    } else if (stat.mtimeMs > newest) newest = stat.mtimeMs;
  };
  for (const path of paths) visit(path);
  return newest;
}

/** Why `target` needs a build (`'missing'`, `'out of date'`), or undefined when its output is current. */
export function buildReason(target) {
  if (!existsSync(target.marker)) return 'missing';
  return newestMtime(target.sources) > statSync(target.marker).mtimeMs ? 'out of date' : undefined;
}

/**
 * Raw, gzip and brotli bytes of `dir/file` as the server sends it: the precompressed sibling when present,
 * else compressed here the same way; a file under 1 KB goes out uncompressed.
 */
export function wireSizes(dir, file) {
  const body = readFileSync(join(dir, file));
  if (body.length < COMPRESS_MIN_BYTES) return { raw: body.length, gzip: body.length, brotli: body.length };
  const sibling = (ext, compress) =>
    existsSync(join(dir, `${file}${ext}`))
      ? statSync(join(dir, `${file}${ext}`)).size
      : compress(body).length;
  return {
    raw: body.length,
    gzip: sibling('.gz', (b) => gzipSync(b, { level: 9 })),
    brotli: sibling('.br', (b) =>
      brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    ),
  };
}

/** The files listed in `dir/first-screen.json` with their sizes; undefined when the build wrote none. */
function listedFiles(dir) {
  const path = join(dir, FIRST_SCREEN_FILE);
  if (!existsSync(path)) return undefined;
  const { files } = JSON.parse(readFileSync(path, 'utf8'));
  return files.map((file) => ({ file, ...wireSizes(dir, file) }));
}

/**
 * The first screen's JavaScript: the shell's listed files plus those of the remote whose list weighs most
 * (a list route loads its owner's remote only). `remotes` maps an app to its build folder. Returns the files
 * (`{ file, raw, gzip, brotli, from }`) and the remote counted (the heaviest in brotli), and the totals; each
 * encoding's total counts the remote heaviest in that encoding, so neither total can be understated. Throws
 * when the shell's list is missing.
 */
export function firstScreen(shellDir, remotes) {
  const shell = listedFiles(shellDir);
  if (!shell) throw new Error(`no ${FIRST_SCREEN_FILE} in ${shellDir}`);
  const lists = Object.entries(remotes)
    .map(([app, dir]) => ({ app, files: listedFiles(dir) }))
    .filter((list) => list.files);
  const weight = (files, key) => files.reduce((sum, f) => sum + f[key], 0);
  const heaviest = (key) =>
    lists.reduce((best, list) => (weight(list.files, key) > weight(best.files, key) ? list : best), {
      app: undefined,
      files: [],
    });
  const remote = heaviest('brotli');
  const files = [
    ...shell.map((f) => ({ ...f, from: 'shell' })),
    ...remote.files.map((f) => ({ ...f, from: remote.app })),
  ];
  const total = (key) => weight(shell, key) + weight(heaviest(key).files, key);
  return { files, remote: remote.app, raw: total('raw'), gzip: total('gzip'), brotli: total('brotli') };
}

/**
 * The encodings (`'brotli'`, `'gzip'`) in which the first screen is above its budget; empty when it is
 * within the budget in both. `budgets` defaults to {@link FIRST_SCREEN_BUDGET} for each.
 */
export function overBudget(screen, budgets = BUDGETS) {
  return Object.entries(budgets)
    .filter(([encoding, limit]) => screen[encoding] > limit)
    .map(([encoding]) => encoding);
}

/** True when the first screen is within its budget in brotli and in gzip. */
export function withinBudget(screen, budgets = BUDGETS) {
  return overBudget(screen, budgets).length === 0;
}

/** Seconds since `started`, as the progress lines print them. */
function seconds(started) {
  return `${((Date.now() - started) / 1000).toFixed(1)} s`;
}

/** Whether `m serve` (`server`) or `m benchmark` (`harness`) would run from its bundle (bin/m.js decides). */
function bundleIsCurrent(bundle) {
  const check = spawnSync(process.execPath, [join(root, 'bin', 'm.js'), '--bundle-current', bundle], {
    cwd: root,
  });
  return check.status === 0;
}

/** Bundles the load-test harness (scripts/build-harness.js) for `m benchmark`; false when it failed. */
function buildHarnessBundle() {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-harness.js')], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return build.status === 0;
}

/** Loads webpack.config.ts (TypeScript, through tsx) and returns its configuration of each of `names`. */
async function webpackConfigs(names) {
  const { register } = await import('tsx/esm/api');
  const unregister = register();
  try {
    const mod = await import(pathToFileURL(join(root, 'webpack.config.ts')).href);
    return mod.default({ only: names.join(',') }, { mode: 'production' });
  } finally {
    await unregister();
  }
}

/**
 * Builds each target with webpack, one after another, printing a line as each one starts and is done
 * (`build: shell done in 21.4 s`, `reasons` says why it is built), so a first start shows where it is. One at a time on purpose: webpack's work is one thread, so
 * side by side the targets take as long in total, and each would only be reported at the very end. Errors
 * and warnings are printed as webpack words them. Returns false when a target failed.
 */
async function compileEach(selected, reasons) {
  process.env.NODE_ENV = 'production';
  let configs;
  try {
    configs = await webpackConfigs(selected.map((t) => t.name));
  } catch (err) {
    console.error(`build: FAILED: could not load webpack.config.ts: ${err.message}`);
    return false;
  }
  const webpack = require('webpack');
  for (const [i, target] of selected.entries()) {
    const why = reasons.get(target) ? ` (${reasons.get(target)})` : '';
    console.log(`build: ${target.name} -> ${target.output.slice(root.length + 1)}/${why} ...`);
    const started = Date.now();
    const compiler = webpack(configs[i]);
    const stats = await new Promise((resolve, reject) =>
      compiler.run((err, result) => (err ? reject(err) : resolve(result))),
    ).catch((err) => err);
    // Closing writes the filesystem cache the next build starts from.
    await new Promise((resolve) => compiler.close(() => resolve()));
    if (stats instanceof Error) {
      console.error(`build: ${target.name} FAILED: ${stats.message}`);
      return false;
    }
    if (stats.hasErrors() || stats.hasWarnings()) {
      console.error(stats.toString({ preset: 'errors-warnings', colors: false }));
    }
    if (stats.hasErrors()) {
      console.error(`build: ${target.name} FAILED after ${seconds(started)}`);
      return false;
    }
    console.log(`build: ${target.name} done in ${seconds(started)}`);
  }
  return true;
}

/**
 * Checks the first screen against its budget (docs/performance.md#the-budget). The figures are printed with
 * `--verbose`; a first screen over its budget prints its files and fails a full build (exit code 3). `npm
 * start` (`--missing`) checks it only with `--verbose`, and then reports without failing: whoever starts the
 * Desk cannot act on it, `npm run build` and its test keep the budget.
 */
function checkBudget(all, opts) {
  const shell = all[0];
  if (!existsSync(shell.marker) || (opts.missing && !opts.verbose)) return 0;
  let screen;
  try {
    screen = firstScreen(shell.output, Object.fromEntries(all.slice(1).map((t) => [t.name, t.output])));
  } catch (err) {
    console.error(`build: FAILED: ${err.message}`);
    return 1;
  }
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  if (opts.verbose) {
    console.log(
      `build: first screen JS = ${kb(screen.brotli)} brotli, ${kb(screen.gzip)} gzip, ${kb(screen.raw)} raw ` +
        `(shell + ${screen.remote ?? 'no'} remote, ${screen.files.length} files; ` +
        `budget ${kb(FIRST_SCREEN_BUDGET_BROTLI)} brotli, ${kb(FIRST_SCREEN_BUDGET_GZIP)} gzip)`,
    );
  }
  const over = overBudget(screen);
  if (over.length === 0) return 0;
  const key = over[0];
  for (const f of [...screen.files].sort((a, b) => b[key] - a[key])) {
    console.error(`  ${kb(f.brotli).padStart(9)} br ${kb(f.gzip).padStart(9)} gz  ${f.from}/${f.file}`);
  }
  const what = `the first screen exceeds its JavaScript budget in ${over.join(' and ')} (docs/performance.md#the-budget)`;
  if (opts.missing) {
    console.error(`build: ${what}.`);
    return 0;
  }
  console.error(`build: FAILED: ${what}.`);
  return 3;
}

const USAGE = 'Usage: node scripts/build.js [--missing] [--only shell,crm,...] [--verbose]';

function parseArgs(argv) {
  const opts = { missing: false, only: undefined, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--missing') opts.missing = true;
    else if (arg === '--verbose') opts.verbose = true;
    else if (arg === '--only') opts.only = argv[++i];
    else if (arg.startsWith('--only=')) opts.only = arg.slice(7);
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else throw new Error(`unknown argument "${arg}"`);
  }
  return opts;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`build: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  const all = targets();
  let selected = all;
  if (opts.only) {
    const names = opts.only
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = names.filter((n) => !all.some((t) => t.name === n));
    if (unknown.length > 0) {
      console.error(
        `build: unknown target(s) ${unknown.join(', ')}; known: ${all.map((t) => t.name).join(', ')}`,
      );
      return 2;
    }
    selected = all.filter((t) => names.includes(t.name));
  }
  const started = Date.now();
  // One line per step: the server bundle, the harness bundle, then the shell and each app's remote.
  if (!opts.only) {
    const bundles = [
      { name: 'server', dir: 'dist/server/', entry: 'dist/server/m.js', build: buildServerBundle },
      {
        name: 'harness',
        dir: 'dist/benchmarks/',
        entry: 'dist/benchmarks/load-test.js',
        build: buildHarnessBundle,
      },
    ];
    for (const bundle of bundles) {
      if (opts.missing && bundleIsCurrent(bundle.name)) {
        console.log(`build: ${bundle.name} up to date (${bundle.dir})`);
        continue;
      }
      const step = Date.now();
      if (!bundle.build()) {
        console.error(`build: FAILED: could not bundle ${bundle.entry}.`);
        return 1;
      }
      console.log(`build: ${bundle.name} done in ${seconds(step)} (${bundle.dir})`);
    }
  }
  const reasons = new Map(selected.map((t) => [t, opts.missing ? buildReason(t) : undefined]));
  if (opts.missing) {
    for (const t of selected.filter((t) => !reasons.get(t))) {
      console.log(`build: ${t.name} up to date (${t.output.slice(root.length + 1)}/)`);
    }
    selected = selected.filter((t) => reasons.get(t) !== undefined);
  }
  if (selected.length > 0) {
    if (!(await compileEach(selected, reasons))) return 1;
    const missing = selected.filter((t) => !existsSync(t.marker));
    if (missing.length > 0) {
      console.error(
        `build: FAILED: no output for ${missing.map((t) => `${t.name} (${t.marker})`).join(', ')}`,
      );
      return 1;
    }
    for (const t of selected) precompress(t.output);
    // webpack leaves a file untouched when its bytes did not change; the marker's time records this build.
    const now = new Date();
    for (const t of selected) utimesSync(t.marker, now, now);
  }
  const budget = checkBudget(all, opts);
  if (budget !== 0) return budget;
  console.log(`build: done in ${seconds(started)}`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(await main());
