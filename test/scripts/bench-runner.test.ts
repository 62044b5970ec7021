/**
 * `npm run bench` (scripts/bench.js) runs the benchmarks of bench/, not the type declarations beside them:
 * asked for an unknown name, it exits 2 and lists what it would run. Arguments starting with `--` are options
 * for the benchmarks, never names.
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
});
