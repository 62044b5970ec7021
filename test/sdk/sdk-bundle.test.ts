import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('the published SDK', () => {
  it.each([
    'src/sdk/index.ts',
    'src/sdk/discovery/index.ts',
    'src/sdk/security/index.ts',
    'src/sdk/http/index.ts',
    'src/sdk/data/index.ts',
    'src/sdk/remotes/index.ts',
    'src/sdk/store/index.ts',
  ])('%s bundles for the browser without React or any Node module', async (entry) => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((p) => /node_modules\/(react|react-dom|@refinedev)\/|^node:|backend\//.test(p)),
    ).toEqual([]);
  });
});
