// @vitest-environment jsdom
/**
 * `RemoteLoader.warm` in a browser: the remote is registered and its entry hinted with a preload link; no
 * remote code is fetched through the runtime or run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type FederationRuntime, hintEntry, RemoteLoader } from '../../../src/sdk/remotes';

afterEach(() => {
  document.head.innerHTML = '';
});

function recordingRuntime() {
  const calls: string[] = [];
  const runtime: FederationRuntime = {
    registerRemotes: (remotes) => {
      calls.push(`register ${remotes.map((r) => r.name).join(',')}`);
    },
    loadRemote: async (id) => {
      calls.push(`load ${id}`);
      return null;
    },
    preloadRemote: async (options) => {
      calls.push(`preload ${options.map((o) => o.nameOrAlias).join(',')}`);
    },
    registerPlugins: () => {},
  };
  return { runtime, calls };
}

const preloadLinks = () =>
  [...document.head.querySelectorAll('link[rel="preload"]')].map((link) => ({
    href: link.getAttribute('href'),
    as: link.getAttribute('as'),
    integrity: link.getAttribute('integrity'),
    crossorigin: link.getAttribute('crossorigin'),
  }));

describe('RemoteLoader.warm in a browser', () => {
  it('registers the remote and adds one preload link for its entry, running nothing', async () => {
    const { runtime, calls } = recordingRuntime();
    const loader = new RemoteLoader({ runtime });

    await loader.warm('crm', { url: 'http://desk.test/crm/remoteEntry.js' });
    await loader.warm('crm', { url: 'http://desk.test/crm/remoteEntry.js' });
    await loader.warm('notes', { url: null });

    expect(calls).toEqual(['register crm']);
    expect(document.head.querySelectorAll('script')).toHaveLength(0);
    expect(preloadLinks()).toEqual([
      { href: 'http://desk.test/crm/remoteEntry.js', as: 'script', integrity: null, crossorigin: null },
    ]);
  });

  it('carries the published integrity with crossorigin="anonymous", as the entry script will', async () => {
    const { runtime } = recordingRuntime();
    const loader = new RemoteLoader({ runtime });
    const integrity = `sha384-${'A'.repeat(64)}`;

    await loader.warm('stock', { url: 'http://desk.test/stock/remoteEntry.js', integrity });

    expect(preloadLinks()).toEqual([
      { href: 'http://desk.test/stock/remoteEntry.js', as: 'script', integrity, crossorigin: 'anonymous' },
    ]);
  });
});

describe('hintEntry', () => {
  it('does nothing without a document', () => {
    expect(hintEntry('http://desk.test/crm/remoteEntry.js', undefined, null)).toBe(false);
    expect(preloadLinks()).toEqual([]);
  });
});
