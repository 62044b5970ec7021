/**
 * `m serve` keeps V8's young generation at its start size while it starts (bin/m.js), then lets it grow
 * under load (src/cli/serve/young-generation.ts): a process that keeps much of what it allocates alive
 * grows it only after the call.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULE = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'serve', 'young-generation.ts');

/** The young generation's size in a process that starts as `m serve` does, allocates with most kept alive. */
function youngGenerationAfterLoad(grow: boolean): number {
  const script = `
    import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
    setFlagsFromString('--semi-space-growth-factor=1');
    const { letYoungGenerationGrow } = await import(${JSON.stringify(MODULE)});
    if (${grow}) letYoungGenerationGrow();
    const kept = [];
    for (let i = 0; i < 300000; i++) kept.push({ i, text: 'entry ' + i });
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(young.space_size, kept.length);
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return Number(out.trim().split(' ')[0]);
}

describe('the young generation of m serve', () => {
  it('stays at its start size until the server has started, and grows under load after that', () => {
    const kept = youngGenerationAfterLoad(false);
    const grown = youngGenerationAfterLoad(true);
    expect(grown).toBeGreaterThanOrEqual(kept * 4);
  });
});
