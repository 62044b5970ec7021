/** `node scripts/build.js --missing` (what `npm start` runs) rebuilds a target that is missing or stale. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript build script without type declarations
import { buildReason, targets } from '../../scripts/build.js';

interface Target {
  name: string;
  marker: string;
  sources: string[];
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fixture(): { target: Target; source: string } {
  const dir = mkdtempSync(join(tmpdir(), 'build-reason-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'src', 'nested'), { recursive: true });
  const source = join(dir, 'src', 'nested', 'view.ts');
  writeFileSync(source, 'export {};');
  return {
    target: { name: 'x', marker: join(dir, 'out', 'remoteEntry.js'), sources: [join(dir, 'src')] },
    source,
  };
}

function at(path: string, seconds: number): void {
  utimesSync(path, seconds, seconds);
}

describe('buildReason', () => {
  it('is "missing" without an output', () => {
    expect(buildReason(fixture().target)).toBe('missing');
  });

  it('is undefined when the output is newer than every source, "out of date" once a source changes', () => {
    const { target, source } = fixture();
    mkdirSync(join(target.marker, '..'), { recursive: true });
    writeFileSync(target.marker, '');
    at(source, 1_000);
    at(target.marker, 2_000);
    expect(buildReason(target)).toBeUndefined();
    at(source, 3_000);
    expect(buildReason(target)).toBe('out of date');
  });

  it('watches the shared sources for every target and each app its own ui folder', () => {
    const all = targets() as Target[];
    const crm = all.find((t) => t.name === 'crm');
    expect(all[0]?.sources.some((s) => s.endsWith(join('src', 'shell')))).toBe(true);
    expect(crm?.sources.some((s) => s.endsWith(join('apps', 'crm', 'ui')))).toBe(true);
  });
});
