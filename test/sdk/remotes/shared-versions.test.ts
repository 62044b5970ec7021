import { afterEach, describe, expect, it, vi } from 'vitest';
import { type FederationRuntime, RemoteLoader } from '../../../src/sdk/remotes';
import { sharedVersionMismatches } from '../../../src/sdk/remotes/shared-versions';

const scopes = {
  default: {
    react: { '19.3.1': { from: 'desk_shell' }, '18.3.1': { from: 'legacy' } },
    'react-dom': { '19.3.1': { from: 'desk_shell' } },
    '@refinedev/core': { '5.0.12': { from: 'desk_shell' }, '5.0.1': { from: 'legacy' } },
  },
};

afterEach(() => vi.restoreAllMocks());

describe('shared versions of a remote', () => {
  it('names the remote and Desk versions of react and react-dom when they differ', () => {
    expect(sharedVersionMismatches(scopes, 'legacy', 'desk_shell')).toEqual([
      { service: 'legacy', package: 'react', remoteVersion: '18.3.1', deskVersion: '19.3.1' },
    ]);
    expect(sharedVersionMismatches(scopes, 'notes', 'desk_shell')).toEqual([]);
    expect(sharedVersionMismatches(undefined, 'legacy', 'desk_shell')).toEqual([]);
  });

  it('reports a mismatch on the console and through the loader once the remote loaded', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const runtime: FederationRuntime = {
      registerRemotes: () => {},
      loadRemote: async <T>() => ({ default: {} }) as T,
      preloadRemote: async () => {},
      shareScopeMap: scopes,
      options: { name: 'desk_shell' },
    };
    const loader = new RemoteLoader({ runtime });
    const heard: unknown[] = [];
    loader.hooks.on('sharedVersionMismatch', (m) => heard.push(m));
    loader.register('legacy', { url: 'http://x/remoteEntry.js' });
    await loader.load('legacy', './views');
    await loader.load('legacy', './views');
    expect(loader.sharedMismatches('legacy')).toHaveLength(1);
    expect(heard).toHaveLength(1);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(
      /legacy was built with react 18\.3\.1, but the Desk runs react 19\.3\.1/,
    );
  });
});
