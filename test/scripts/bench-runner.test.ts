/**
 * `npm run bench` (scripts/bench.js) runs the benchmarks of bench/, not the type declarations beside them:
 * asked for an unknown name, it exits 2 and lists what it would run. Arguments starting with `--` are options
 * for the benchmarks, never names. A run of all of them covers every goal: the reference run and, after it, the
 * highest passing rate with 60 users (`reference --rate-60`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

describe('scripts/bench.js', () => {
  it('offers every bench/*.ts but autocannon.d.ts', () => {
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'bench.js'), 'no-such-bench'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    const available = /Available: (.*)$/m.exec(run.stderr)?.[1]?.split(', ') ?? [];
    expect(available).toEqual(expect.arrayContaining(['list', 'list-growth', 'loadtest']));
    expect(available.filter((name) => name.includes('.d') || name === 'autocannon')).toEqual([]);
  });

  it('passes options on instead of taking them for benchmark names', () => {
    const run = spawnSync(
      process.execPath,
      [join(root, 'scripts', 'bench.js'), 'no-such-bench', '--rate-60', '--cpu-prof=/tmp/x'],
      { cwd: root, encoding: 'utf8' },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Unknown benchmark(s): no-such-bench.');
    expect(/Available: (.*)$/m.exec(run.stderr)?.[1]?.split(', ')).toContain('reference');
  });

  it('runs every benchmark, and the reference run twice: as is and with --rate-60', () => {
    const list = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'scripts', 'bench.js'), '--list', ...args], {
        cwd: root,
        encoding: 'utf8',
      });
    const all = list();
    expect(all.status).toBe(0);
    const runs = all.stdout.trim().split('\n');
    expect(runs).toEqual(expect.arrayContaining(['bench/lighthouse', 'bench/loadtest-whole', 'bench/sdk']));
    expect(runs.filter((r) => r.startsWith('bench/reference'))).toEqual([
      'bench/reference',
      'bench/reference --rate-60',
    ]);
    // Named, a benchmark runs once with the command line's options only.
    expect(list('reference').stdout.trim().split('\n')).toEqual(['bench/reference']);
  });
});
