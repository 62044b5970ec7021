#!/usr/bin/env node
// `npm run bench [name...]`: runs bench/<name>.ts (all of them when no name is given), one after another,
// each in its own process so one benchmark's heap and JIT state cannot skew the next. Each prints its ratios.
// Arguments starting with `--` go to every benchmark run (`npm run bench reference -- --rate-60`).
// A run of all of them also runs the reference run's second measure, the highest passing rate with 60 users
// (`reference --rate-60`), so one `npm run bench` prints every goal's row.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const available = readdirSync(join(root, 'bench'))
  // Type declarations (autocannon.d.ts) sit beside the benchmarks and are not benchmarks.
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
// `--list` prints the runs this command line makes, one per line, and runs none of them.
const listOnly = process.argv.includes('--list');
const options = process.argv.slice(2).filter((a) => a.startsWith('--') && a !== '--list');
const unknown = wanted.filter((n) => !available.includes(n));
if (unknown.length > 0) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available.join(', ')}`);
  process.exit(2);
}
/** Each run: a benchmark's name and the options it gets besides the command line's. */
const runs =
  wanted.length > 0
    ? wanted.map((name) => [name, []])
    : available.flatMap((name) =>
        name === 'reference'
          ? [
              [name, []],
              [name, ['--rate-60']],
            ]
          : [[name, []]],
      );
if (listOnly) {
  for (const [name, own] of runs) console.log([`bench/${name}`, ...own].join(' '));
  process.exit(0);
}
let failed = 0;
for (const [name, own] of runs) {
  console.log(`\n=== bench/${name}${own.length > 0 ? ` ${own.join(' ')}` : ''}`);
  const args = [...own, ...options.filter((o) => !own.includes(o))];
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', `${name}.ts`), ...args], {
    stdio: 'inherit',
    cwd: root,
  });
  if (r.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
