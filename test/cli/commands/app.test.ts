/** `m app`: how it asks an app's webpack configuration for a build. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Configuration } from 'webpack';
import { loadRemoteConfig } from '../../../src/cli/commands/app';

const root = join(import.meta.dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'desk-app-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The scaffold's webpack.config.ts, importing the platform's build helpers by path (no package installed here).
writeFileSync(
  join(dir, 'webpack.config.ts'),
  readFileSync(join(root, 'templates', 'app', 'webpack.config.ts.tmpl'), 'utf8')
    .replaceAll("'__PLATFORM_PACKAGE__/webpack'", JSON.stringify(join(root, 'src', 'webpack', 'index.ts')))
    .replaceAll('__NAME__', 'probe'),
);

function hotLoaders(config: Configuration): string[] {
  return (config.module?.rules ?? []).flatMap((rule) =>
    rule && typeof rule === 'object' && typeof rule.loader === 'string' && /hot-\w+-loader/.test(rule.loader)
      ? [rule.loader]
      : [],
  );
}

describe('loadRemoteConfig', () => {
  it("hands `m app dev`'s hot updates to a scaffolded app through webpack's env", async () => {
    const dev = await loadRemoteConfig(dir, { mode: 'development', env: { hot: true } });
    expect(dev.name).toBe('probe');
    expect(dev.mode).toBe('development');
    expect(hotLoaders(dev)).toHaveLength(2);
  });

  it('builds a scaffolded app for production, without hot updates, for `m app build`', async () => {
    const build = await loadRemoteConfig(dir, { mode: 'production', env: {} });
    expect(build.mode).toBe('production');
    expect(hotLoaders(build)).toEqual([]);
  });
});
