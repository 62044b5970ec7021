#!/usr/bin/env node
// `npm run build:harness`: bundles the load-test harness (src/benchmarks/load-test.ts) into
// dist/benchmarks/load-test.js with esbuild, split into chunks: what a run does not need (the https
// client, the NATS client, faker, the HTML report, the live servers, --compare, --dry-run) sits in chunks
// of its own that are only read when imported, so starting the harness parses and runs a fraction of
// the code (docs/load-testing.md#generator-cost). Chunks of an earlier build that this one did not write
// are removed afterwards, not before, so a run started from the previous build keeps its files.
import { readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const outdir = join(root, 'dist', 'benchmarks');

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
  metafile: true,
  logLevel: 'warning',
  // Bundled CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import{createRequire}from'node:module';const require=createRequire(import.meta.url);" },
});

const written = new Set(Object.keys(result.metafile.outputs).map((p) => relative(outdir, join(root, p))));
for (const name of readdirSync(outdir)) {
  if (name.endsWith('.js') && !written.has(name)) rmSync(join(outdir, name), { force: true });
}
