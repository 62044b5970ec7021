import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSdkError } from '../../../src/sdk/errors';
import { checkViewsShape, diagnosisOf, type FederationRuntime, RemoteLoader } from '../../../src/sdk/remotes';
import { classifyLoadFailure } from '../../../src/sdk/remotes/load-failure';

const ENTRY = 'http://remotes.test/legacy/remoteEntry.js';
const MANIFEST = 'http://remotes.test/legacy/mf-manifest.json';

/** The Desk's share scope: React 19.3.1 provided by the Desk's runtime instance `desk_shell`. */
function deskScope() {
  return {
    default: {
      react: { '19.3.1': { from: 'desk_shell' } } as Record<string, Record<string, unknown>>,
      'react-dom': { '19.3.1': { from: 'desk_shell' } },
    } as Record<string, Record<string, { from?: string }>>,
  };
}

/** A runtime whose `loadRemote` runs `load` (counting calls) and which keeps the plugins registered. */
function runtimeDouble(load: (id: string, runtime: FederationRuntime) => unknown) {
  const plugins: Array<Record<string, unknown>> = [];
  const calls: string[] = [];
  const runtime: FederationRuntime = {
    registerRemotes: () => {},
    loadRemote: async <T>(id: string) => {
      calls.push(id);
      return (await load(id, runtime)) as T;
    },
    preloadRemote: async () => {},
    registerPlugins: (p) => plugins.push(...(p as unknown as Array<Record<string, unknown>>)),
    shareScopeMap: deskScope(),
    options: { name: 'desk_shell' },
  };
  return { runtime, plugins, calls };
}

/** A fetch that answers `manifest` as JSON for the manifest URL and 404 for anything else; records URLs. */
function manifestFetch(manifest: unknown) {
  const urls: string[] = [];
  const impl = (async (input: RequestInfo | URL) => {
    const url = String(input);
    urls.push(url);
    return url === MANIFEST && manifest !== undefined
      ? new Response(JSON.stringify(manifest), { headers: { 'content-type': 'application/json' } })
      : new Response('not found', { status: 404 });
  }) as typeof fetch;
  return { impl, urls };
}

/** A manifest as the enhanced plugin writes it (the fields the Desk reads). */
function manifestOf(name: string, exposes: string[], react: { requiredVersion?: string; version?: string }) {
  return {
    id: name,
    name,
    metaData: { name, globalName: name },
    exposes: exposes.map((path) => ({ id: `${name}:${path.slice(2)}`, name: path.slice(2), path })),
    shared: [{ id: `${name}:react`, name: 'react', singleton: true, ...react }],
    remotes: [],
  };
}

async function failure(loader: RemoteLoader, service = 'legacy') {
  const error = await loader.load(service, './views').catch((e: unknown) => e);
  expect(isSdkError(error) && error.code).toBe('remote_load_failed');
  return error;
}

/** A component, as a remote would export one. */
function Component(): null {
  return null;
}

afterEach(() => vi.restoreAllMocks());

describe('diagnosed remote failures', () => {
  it('no container of the service name: the runtime found no exports (RUNTIME-001), diagnosed without a retry', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { runtime, calls } = runtimeDouble(() => {
      throw new Error(
        'Failed to get remoteEntry exports. #RUNTIME-001\nargs: {"remoteName":"legacy","remoteEntryKey":"legacy"}',
      );
    });
    const loader = new RemoteLoader({ runtime });
    loader.register('legacy', { url: ENTRY });

    const error = await failure(loader);
    expect(diagnosisOf(error)?.code).toBe('remote_container_missing');
    expect((error as Error).message).toMatch(/^remote_container_missing: legacy: .*named "legacy"/);
    expect(calls).toHaveLength(1);
    expect(String(logged.mock.calls[0]?.[0])).toContain('remote_container_missing');
  });

  it('no container of the service name, from the manifest: refused before the entry runs', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { runtime, calls } = runtimeDouble(() => ({ default: {} }));
    const { impl, urls } = manifestFetch(manifestOf('app2', ['./Widget'], { requiredVersion: '^19.0.0' }));
    const loader = new RemoteLoader({ runtime, fetch: impl });
    loader.register('legacy', { url: ENTRY });

    const error = await failure(loader);
    expect(diagnosisOf(error)).toEqual({
      code: 'remote_container_missing',
      detail: expect.stringContaining('named "app2", not "legacy"'),
    });
    // Every broken requirement is named at once: the container's name and the missing ./views.
    expect(diagnosisOf(error)?.detail).toContain('it exposes ./Widget, not ./views');
    expect(urls).toEqual([MANIFEST]);
    expect(calls).toEqual([]);
  });

  it('no ./views: from the manifest (before running) and from the container (RUNTIME-014)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const byManifest = runtimeDouble(() => ({ default: {} }));
    const { impl } = manifestFetch(manifestOf('legacy', ['./Widget'], {}));
    const loader = new RemoteLoader({ runtime: byManifest.runtime, fetch: impl });
    loader.register('legacy', { url: ENTRY });
    const refused = await failure(loader);
    expect(diagnosisOf(refused)?.code).toBe('remote_views_missing');
    expect(diagnosisOf(refused)?.detail).toContain('it exposes ./Widget, not ./views');
    expect(byManifest.calls).toEqual([]);

    const byContainer = runtimeDouble(() => {
      throw new Error('The remote does not expose the requested module. #RUNTIME-014');
    });
    const second = new RemoteLoader({ runtime: byContainer.runtime });
    second.register('legacy', { url: ENTRY });
    expect(diagnosisOf(await failure(second))?.code).toBe('remote_views_missing');
    expect(byContainer.calls).toHaveLength(1);
  });

  it('./views of the wrong shape: a component, named exports without views, a bad widget', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    for (const module of [
      { default: Component },
      { Widget: Component },
      { default: { widgets: [{ id: 'count' }] } },
      { default: { views: { 'crm.Customer': Component } } },
    ]) {
      const { runtime, calls } = runtimeDouble(() => module);
      const loader = new RemoteLoader({ runtime });
      loader.register('legacy', { url: ENTRY });
      const error = await failure(loader);
      expect(diagnosisOf(error)?.code).toBe('remote_views_invalid');
      expect(calls).toHaveLength(1);
    }
    expect(checkViewsShape({ default: { views: { 'crm.Customer': { form: Component } } } })).toBeUndefined();
    expect(checkViewsShape({ views: {}, widgets: [{ id: 'n', title: 'N', component: Component }] })).toBe(
      undefined,
    );
  });

  it('a shared React the Desk cannot serve, from the manifest: refused before running, naming both versions', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { runtime, calls } = runtimeDouble(() => ({ default: {} }));
    const { impl } = manifestFetch(
      manifestOf('legacy', ['./views'], { requiredVersion: '^18.2.0', version: '18.3.1' }),
    );
    const loader = new RemoteLoader({ runtime, fetch: impl });
    loader.register('legacy', { url: ENTRY });

    const error = await failure(loader);
    expect(diagnosisOf(error)?.code).toBe('remote_shared_incompatible');
    expect(diagnosisOf(error)?.detail).toContain(
      'requires react ^18.2.0, but the Desk runs react 19.3.1, so it was not run. Share react as a singleton',
    );
    expect(calls).toEqual([]);
  });

  it('a compatible range (^19) loads against the Desk singleton', async () => {
    const module = { default: { views: {} } };
    const { runtime, calls } = runtimeDouble(() => module);
    const { impl } = manifestFetch(manifestOf('legacy', ['./views'], { requiredVersion: '^19.0.0' }));
    const loader = new RemoteLoader({ runtime, fetch: impl });
    loader.register('legacy', { url: ENTRY });
    expect(await loader.load('legacy', './views')).toBe(module);
    expect(calls).toEqual(['legacy/views']);
  });

  it('a shared React the Desk cannot serve, from the share scope after init: refused before ./views is got', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let got = false;
    const { runtime, plugins } = runtimeDouble(async (_id, self) => {
      // What the runtime does: the container's init registers its shared packages, then the hook runs,
      // then `get('./views')`.
      const scope = self.shareScopeMap!.default!;
      scope.react!['18.3.1'] = { from: 'legacy', shareConfig: { requiredVersion: '^18.2.0' } } as never;
      const hook = plugins.find((p) => p.name === 'desk-remote-shared-versions')!;
      (hook.initContainer as (a: unknown) => unknown)({ remoteInfo: { name: 'legacy' }, shareScope: scope });
      got = true;
      return { default: {} };
    });
    const loader = new RemoteLoader({ runtime });
    loader.register('legacy', { url: ENTRY });

    const error = await failure(loader);
    expect(diagnosisOf(error)?.code).toBe('remote_shared_incompatible');
    expect((error as Error).message).toContain('react ^18.2.0, but the Desk runs react 19.3.1');
    expect(got).toBe(false);
  });

  it('a network failure is not diagnosed: it may pass, so it is retried', async () => {
    const { runtime, calls } = runtimeDouble(() => {
      throw new Error('Failed to load script resources. #RUNTIME-008 ScriptNetworkError');
    });
    const loader = new RemoteLoader({ runtime });
    loader.register('legacy', { url: ENTRY });
    const error = await failure(loader);
    expect(diagnosisOf(error)).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it('a CSP refusal of eval in the remote, or of its script, names the CSP', () => {
    const cause = new Error('Failed to get remoteEntry exports. #RUNTIME-001');
    const evalRefused = classifyLoadFailure('legacy', ENTRY, './views', cause, [
      { blockedURI: 'eval', directive: 'script-src', sourceFile: ENTRY },
    ]);
    expect(evalRefused?.code).toBe('remote_csp_refused');
    expect(evalRefused?.detail).toContain('eval devtool');
    const scriptRefused = classifyLoadFailure('legacy', ENTRY, './views', cause, [
      { blockedURI: ENTRY, directive: 'script-src-elem', sourceFile: '' },
    ]);
    expect(scriptRefused?.code).toBe('remote_csp_refused');
    // A refusal elsewhere on the page is not this remote's.
    const elsewhere = classifyLoadFailure('legacy', ENTRY, './views', cause, [
      { blockedURI: 'eval', directive: 'script-src', sourceFile: 'http://other.test/x.js' },
    ]);
    expect(elsewhere?.code).toBe('remote_container_missing');
  });
});
