import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRemoteConfig, PLATFORM_ROOT, sharedSingletons } from '../../src/webpack';

describe('createRemoteConfig', () => {
  const config = createRemoteConfig({
    name: 'notes',
    context: '/tmp/notes-app',
    exposes: { './views': 'ui/views.ts' },
  });
  const federation = config.plugins?.find(
    (p) => p?.constructor.name === 'ModuleFederationPlugin',
  ) as unknown as {
    _options: Record<string, unknown>;
  };

  it('writes remoteEntry.js and mf-manifest.json to <app>/static/mfe with publicPath auto and hashed chunks', () => {
    expect(config.mode).toBe('production');
    expect(config.output?.path).toBe('/tmp/notes-app/static/mfe');
    expect(config.output?.publicPath).toBe('auto');
    expect(config.output?.chunkFilename).toBe('[name].[contenthash:10].js');
    expect(federation._options).toMatchObject({
      name: 'notes',
      filename: 'remoteEntry.js',
      library: { type: 'window', name: 'notes' },
      exposes: { './views': './ui/views.ts' },
      manifest: { fileName: 'mf-manifest.json' },
    });
  });

  it("takes the Desk's singletons at the Desk's pinned versions and bundles none of them", () => {
    const shared = federation._options.shared as ReturnType<typeof sharedSingletons>;
    expect(shared).toEqual(sharedSingletons('remote'));
    expect(Object.keys(shared)).toEqual(Object.keys(sharedSingletons()));
    expect(shared.react).toEqual({ singleton: true, requiredVersion: '19.3.1', import: false });
    expect(shared['@refinedev/core']).toEqual({ singleton: true, requiredVersion: '5.0.12', import: false });
    // The Desk provides them: its own map has a copy of each to offer.
    expect(sharedSingletons().react).toEqual({ singleton: true, requiredVersion: '19.3.1' });
  });

  it("uses the Desk page's federation runtime instead of bundling one", () => {
    expect(federation._options).toMatchObject({
      shareStrategy: 'loaded-first',
      experiments: { externalRuntime: true, optimization: { disableSnapshot: true } },
    });
  });

  it("resolves modules the app does not install from the platform's node_modules", () => {
    expect(config.resolve?.modules).toEqual(['node_modules', join(PLATFORM_ROOT, 'node_modules')]);
  });

  it("asks for hot updates only when told through `hot`, as `m app dev` passes in webpack's env", () => {
    const loaders = (c: typeof config) =>
      (c.module?.rules ?? []).flatMap((rule) =>
        rule && typeof rule === 'object' && typeof rule.loader === 'string' ? [rule.loader] : [],
      );
    const isHotLoader = (loader: string) => /hot-(views|components)-loader\.cjs$/.test(loader);
    expect(loaders(config).some(isHotLoader)).toBe(false);

    const hot = createRemoteConfig({
      name: 'notes',
      context: '/tmp/notes-app',
      exposes: { './views': 'ui/views.ts' },
      hot: true,
    });
    expect(hot.mode).toBe('development');
    expect(loaders(hot).filter(isHotLoader)).toHaveLength(2);
    // A failed hot build emits nothing: the page keeps the last good build until the fix arrives.
    expect(hot.optimization?.emitOnErrors).toBe(false);

    // A development build without `hot` (the platform's own dev build) has no hot-update loaders.
    const dev = createRemoteConfig({
      name: 'notes',
      context: '/tmp/notes-app',
      exposes: { './views': 'ui/views.ts' },
      mode: 'development',
    });
    expect(loaders(dev).some(isHotLoader)).toBe(false);
    expect(dev.optimization?.emitOnErrors).toBeUndefined();
  });
});
