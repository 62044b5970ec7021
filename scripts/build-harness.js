#!/usr/bin/env node
// `npm run build:harness`: bundles the load-test harness (src/benchmarks/load-test.ts) into
// dist/benchmarks/load-test.js with esbuild, split into chunks: what a run does not need (the https
// client, the NATS client, faker, the HTML report, the live servers, --compare, --dry-run) sits in chunks
// of its own that are only read when imported, so starting the harness parses and runs a fraction of
// the code (docs/load-testing.md#generator-cost); zod's message locales other than English are left out.
// Each file is written beside its name and renamed over it, the chunks before the entry, so an `m benchmark`
// starting meanwhile reads the previous build's file or this one's, never half of one; chunks of an earlier
// build that this one did not write are removed afterwards, not before, so a run started from it keeps them.
import { mkdirSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const outdir = join(root, 'dist', 'benchmarks');

/**
 * zod exports every one of its message locales as `z.locales` (a namespace the bundle keeps whole: 360 kB
 * of the 750 kB of zod, parsed at every start). The harness reports in English, the one locale zod itself
 * applies: the namespace is narrowed to it.
 */
const englishZodOnly = {
  name: 'english-zod-only',
  setup(b) {
    b.onResolve({ filter: /[/\\]locales[/\\]index\.js$/ }, (args) =>
      /[/\\]node_modules[/\\]zod[/\\]/.test(args.importer)
        ? { path: join(dirname(args.importer), args.path), namespace: 'zod-locales' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
    }));
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: { 'load-test': 'src/benchmarks/load-test.ts' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['tsx'],
  outdir,
  // Chunks beside the entry: a generator thread starts the entry by its path next to them.
  chunkNames: 'chunk-[hash]',
  write: false,
  logLevel: 'warning',
  plugins: [englishZodOnly],
  // Bundled CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import{createRequire}from'node:module';const require=createRequire(import.meta.url);" },
});

const entry = join(outdir, 'load-test.js');
mkdirSync(outdir, { recursive: true });
for (const file of result.outputFiles.sort((a, b) => Number(a.path === entry) - Number(b.path === entry))) {
  const partial = `${file.path}.${process.pid}.partial`;
  writeFileSync(partial, file.contents);
  renameSync(partial, file.path);
}
const written = new Set(result.outputFiles.map((file) => relative(outdir, file.path)));
for (const name of readdirSync(outdir)) {
  if (name.endsWith('.js') && !written.has(name)) rmSync(join(outdir, name), { force: true });
}
// bin/m.js runs `m benchmark` from the entry while it is newer than the sources: its time records this build.
const now = new Date();
utimesSync(entry, now, now);
